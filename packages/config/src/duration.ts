const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;

/**
 * Parses a Go-style duration (`30s`, `1m30s`, `250ms`, `1.5h`) or a plain number of seconds into
 * milliseconds. Returns undefined for anything else, so callers can say which field was wrong.
 */
export function parseDurationMs(input: string | number): number | undefined {
  if (typeof input === "number") return Number.isFinite(input) && input >= 0 ? input * 1000 : undefined;
  const text = input.trim();
  if (text === "0") return 0;
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const at = PART.lastIndex;
    const m = PART.exec(text);
    if (!m || m.index !== at) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  }
  return text.length > 0 ? total : undefined;
}
