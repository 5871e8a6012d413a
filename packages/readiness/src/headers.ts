/** Groups ordered header pairs by name (case-insensitive, first spelling kept); only the first User-Agent counts, as in Go. */
export function groupHeaders(
  pairs: ReadonlyArray<readonly [string, string]>,
  lowercase = false,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const spelling = new Map<string, string>();
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const existing = spelling.get(key);
    if (existing === undefined) {
      const n = lowercase ? key : name;
      spelling.set(key, n);
      out[n] = value;
      continue;
    }
    if (key === "user-agent" || key === "host") continue;
    const prev = out[existing] as string | string[];
    out[existing] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
