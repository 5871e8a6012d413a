/**
 * An HTTP/2 request's field list (pseudo-headers included, as Node's compatibility API gives it) for an
 * HTTP/1.1 app: pseudo-headers dropped, `:authority` as `Host` unless a Host field is there already
 * (K-Original-Host restored, or the client's own).
 */
export function h1FieldsFromH2(fields: readonly string[]): string[] {
  const out: string[] = [];
  let authority: string | undefined;
  let host = false;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i] as string;
    const value = fields[i + 1] as string;
    if (name.charCodeAt(0) === 0x3a) {
      if (name === ":authority") authority = value;
      continue;
    }
    if (name.length === 4 && name.toLowerCase() === "host") host = true;
    out.push(name, value);
  }
  if (!host && authority !== undefined) out.unshift("host", authority);
  return out;
}
