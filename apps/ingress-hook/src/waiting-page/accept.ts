/** One media range of an Accept header with its weight. */
interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

/** Parses an Accept header (RFC 9110 s12.5.1) into media ranges; a malformed range or q is skipped. */
function parseAccept(value: string): MediaRange[] {
  const out: MediaRange[] = [];
  // Bounded: a header with thousands of ranges is not a browser's.
  for (const part of value.split(",").slice(0, 64)) {
    const [range = "", ...params] = part.split(";");
    const m = /^\s*([!#$%&'*+.^_`|~0-9a-z-]+)\/([!#$%&'*+.^_`|~0-9a-z-]+)\s*$/i.exec(range);
    if (!m) continue;
    let q = 1;
    let bad = false;
    for (const p of params) {
      const kv = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(p);
      if (!kv) continue;
      // qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
      if (!/^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(kv[1] as string)) bad = true;
      else q = Number(kv[1]);
    }
    if (!bad) out.push({ type: (m[1] as string).toLowerCase(), subtype: (m[2] as string).toLowerCase(), q });
  }
  return out;
}

/**
 * Whether a client's Accept prefers an HTML page: it names `text/html` itself (a wildcard alone, as curl
 * and fetch() send, is not a person's browser) with q > 0, and gives no other media range a higher q.
 * Browsers' navigations send `text/html,...,*\/*;q=0.8`; API clients name JSON or nothing.
 */
export function prefersHtml(accept: string | null | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const html = ranges.find((r) => r.type === "text" && r.subtype === "html");
  if (!html || html.q <= 0) return false;
  return ranges.every((r) => r.q <= html.q);
}
