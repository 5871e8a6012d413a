/** Nanoseconds per Go duration unit (time.ParseDuration's table; both micro signs are accepted). */
const UNIT_NS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  "\u00b5s": 1_000n,
  "\u03bcs": 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const TWO_63 = 1n << 63n;
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/**
 * Go's time.ParseDuration, exactly: `[-+]?([0-9]*(\.[0-9]*)?unit)+` or a bare `0`, units ns, us, µs, μs,
 * ms, s, m, h, at most 2^63-1 ns. Returns nanoseconds, or undefined where Go returns an error.
 */
export function parseGoDurationNs(text: string): bigint | undefined {
  let s = text;
  let neg = false;
  if (s[0] === "-" || s[0] === "+") {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (s === "") return undefined;
  let d = 0n;
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) return undefined;
    // The whole part: Go fails on overflow past 2^63.
    let i = 0;
    let v = 0n;
    while (isDigit(s[i])) {
      v = v * 10n + BigInt(s.charCodeAt(i) - 48);
      if (v > TWO_63) return undefined;
      i++;
    }
    const pre = i > 0;
    s = s.slice(i);
    // The fraction: digits past int64 precision are read but dropped, as Go does.
    let f = 0n;
    let scale = 1;
    let post = false;
    if (s[0] === ".") {
      s = s.slice(1);
      let j = 0;
      let overflow = false;
      while (isDigit(s[j])) {
        if (!overflow) {
          const y = f * 10n + BigInt(s.charCodeAt(j) - 48);
          if (f > (TWO_63 - 1n) / 10n || y > TWO_63) overflow = true;
          else {
            f = y;
            scale *= 10;
          }
        }
        j++;
      }
      post = j > 0;
      s = s.slice(j);
    }
    if (!pre && !post) return undefined;
    let u = 0;
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) u++;
    if (u === 0) return undefined;
    const unit = UNIT_NS[s.slice(0, u)];
    if (unit === undefined) return undefined;
    s = s.slice(u);
    if (v > TWO_63 / unit) return undefined;
    v *= unit;
    if (f > 0n) {
      // Go multiplies in float64 here; so do we, to round the same way.
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)));
      if (v > TWO_63) return undefined;
    }
    d += v;
    if (d > TWO_63) return undefined;
  }
  if (neg) return -d;
  return d > TWO_63 - 1n ? undefined : d;
}

/** Go's time.ParseDuration in milliseconds (fractions of a millisecond kept), or undefined where Go errs. */
export function parseGoDuration(text: string): number | undefined {
  const ns = parseGoDurationNs(text);
  return ns === undefined ? undefined : Number(ns) / 1e6;
}

/** Go's Duration.String() for a count of nanoseconds: `1h2m3.5s`, `1.5ms`, `2µs`, `0s`. */
export function goDurationString(ns: bigint): string {
  if (ns === 0n) return "0s";
  const neg = ns < 0n;
  let u = neg ? -ns : ns;
  let out: string;
  if (u < 1_000_000_000n) {
    // Under a second: the largest unit that keeps the integer part non-zero.
    const [unit, digits] =
      u < 1_000n ? ["ns", 0] : u < 1_000_000n ? ["\u00b5s", 3] : (["ms", 6] as [string, number]);
    out = `${frac(u, digits)}${unit}`;
  } else {
    out = `${frac(u % 60_000_000_000n, 9)}s`;
    u /= 60_000_000_000n;
    if (u > 0n) {
      out = `${u % 60n}m${out}`;
      u /= 60n;
      if (u > 0n) out = `${u}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

/** `v / 10^digits` printed with the fraction's trailing zeros (and a bare dot) removed. */
function frac(v: bigint, digits: number): string {
  if (digits === 0) return String(v);
  const p = 10n ** BigInt(digits);
  const f = String(v % p)
    .padStart(digits, "0")
    .replace(/0+$/, "");
  return f === "" ? String(v / p) : `${v / p}.${f}`;
}

/** Formats milliseconds the way Go prints a duration (`1m30s`, `500ms`, `0s`), for messages. */
export function formatGoDuration(ms: number): string {
  return goDurationString(BigInt(Math.round(ms * 1e6)));
}
