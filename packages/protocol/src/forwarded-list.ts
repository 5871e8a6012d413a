/** One element of a `Forwarded` header (RFC 7239): lower-case parameter names to their unquoted values. */
export type ForwardedElement = Record<string, string>;

// RFC 9110 5.6.2 tchar.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// What a quoted-string can carry, escaped or not: HTAB, SP, VCHAR, obs-text.
const QUOTABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Parses a `Forwarded` value into its elements, or undefined when it breaks RFC 7239's grammar (a
 * parameter without `=`, a bad token, an unterminated quoted string, a parameter twice in one element).
 * Never throws.
 */
export function parseForwarded(value: string): ForwardedElement[] | undefined {
  const out: ForwardedElement[] = [];
  let el: ForwardedElement = {};
  let i = 0;
  const n = value.length;
  const ows = () => {
    while (i < n && (value[i] === " " || value[i] === "\t")) i++;
  };
  ows();
  if (i === n) return undefined;
  for (;;) {
    ows();
    const nameStart = i;
    while (i < n && !'=;, \t"'.includes(value[i] as string)) i++;
    const name = value.slice(nameStart, i).toLowerCase();
    if (!TOKEN.test(name) || value[i] !== "=") return undefined;
    i++;
    let v: string;
    if (value[i] === '"') {
      i++;
      v = "";
      for (;;) {
        if (i >= n) return undefined;
        const ch = value[i] as string;
        if (ch === '"') break;
        if (ch === "\\") {
          i++;
          if (i >= n) return undefined;
        }
        v += value[i];
        i++;
      }
      i++;
      if (!QUOTABLE.test(v)) return undefined;
    } else {
      const start = i;
      while (i < n && !";, \t".includes(value[i] as string)) i++;
      v = value.slice(start, i);
      if (!TOKEN.test(v)) return undefined;
    }
    if (Object.hasOwn(el, name)) return undefined;
    // Defined, not assigned: a client's `__proto__=x` must be a parameter like any other, not the
    // element's prototype.
    Object.defineProperty(el, name, { value: v, enumerable: true, writable: true, configurable: true });
    ows();
    if (i === n) {
      out.push(el);
      return out;
    }
    const sep = value[i];
    i++;
    if (sep === ",") {
      out.push(el);
      el = {};
    } else if (sep !== ";") return undefined;
  }
}

/** Writes a value as a token when it is one, else as a quoted string with `"` and `\` escaped. */
function formatValue(v: string): string {
  return TOKEN.test(v) ? v : `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

/**
 * Writes elements as a `Forwarded` value, quoting what is not a token. Names must be tokens and values
 * quotable (HTAB, SP, VCHAR, obs-text): anything else is a programmer error and throws.
 */
export function formatForwarded(elements: readonly ForwardedElement[]): string {
  return elements
    .map((el) =>
      Object.entries(el)
        .map(([k, v]) => {
          if (!TOKEN.test(k)) throw new Error(`Forwarded parameter name ${JSON.stringify(k)} is not a token`);
          if (!QUOTABLE.test(v)) throw new Error(`Forwarded value ${JSON.stringify(v)} cannot be quoted`);
          return `${k}=${formatValue(v)}`;
        })
        .join(";"),
    )
    .join(", ");
}

/** A node for `for=`: IPv6 literals are bracketed (RFC 7239 6), everything else stays as it is. */
export function forwardedNode(address: string): string {
  return address.includes(":") && !address.startsWith("[") ? `[${address}]` : address;
}
