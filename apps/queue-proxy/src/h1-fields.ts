/** Field-list helpers shared by the request and response sides: hop-by-hop names and removal. */

/** Never removed because `Connection` names them: they frame or route the message, not the hop. */
const NOT_HOP_BY_HOP = new Set(["content-length", "transfer-encoding", "host", "close", "keep-alive", ""]);

/** The lower-case field names a `Connection` value (tokens, comma-separated) makes hop-by-hop. */
export function connectionNamed(tokens: readonly string[]): Set<string> {
  const named = new Set<string>();
  for (const t of tokens) {
    const lower = t.trim().toLowerCase();
    if (!NOT_HOP_BY_HOP.has(lower)) named.add(lower);
  }
  return named;
}

/** Removes, in one pass, the fields of a flat [name, value, ...] list whose lower-case name is in `names`. */
export function removeFields(fields: string[], names: ReadonlySet<string>): void {
  let to = 0;
  for (let from = 0; from < fields.length; from += 2) {
    if (names.has((fields[from] as string).toLowerCase())) continue;
    fields[to++] = fields[from] as string;
    fields[to++] = fields[from + 1] as string;
  }
  fields.length = to;
}

/** `name` is `Host` in any case, checked without making a lower-case copy (every request has one). */
export function isHostName(name: string): boolean {
  return (
    name.length === 4 &&
    (name.charCodeAt(0) | 0x20) === 0x68 &&
    (name.charCodeAt(1) | 0x20) === 0x6f &&
    (name.charCodeAt(2) | 0x20) === 0x73 &&
    (name.charCodeAt(3) | 0x20) === 0x74
  );
}
