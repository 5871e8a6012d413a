const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;

/**
 * Parses a Go duration (`30s`, `1m30s`, `1.5h`, `-2m`, `0`) into milliseconds, or undefined when the text
 * is not one. Knative's config and annotations use this syntax.
 */
export function parseGoDuration(text: string): number | undefined {
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return undefined;
  let total = 0;
  while (s.length > 0) {
    const m = PART.exec(s);
    if (!m) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    s = s.slice(m[0].length);
  }
  // Go keeps nanoseconds as integers; rounding here drops float noise such as 0.1 + 0.2.
  return sign * (Math.round(total * 1e6) / 1e6);
}

/** Formats milliseconds the way Go prints a duration (`1m30s`, `500ms`, `0s`), for messages. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  const neg = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${neg ? "-" : ""}${rest}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = rest / 1000;
  let out = neg ? "-" : "";
  if (h > 0) out += `${h}h`;
  if (h > 0 || m > 0) out += `${m}m`;
  return `${out}${s}s`;
}
