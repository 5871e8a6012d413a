const GRPC_UNIT_MS: Record<string, number> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000001,
};

/**
 * Parses a `grpc-timeout` value (1-8 digits and a unit: H M S m u n) into milliseconds; undefined when
 * malformed, so a bad header is ignored rather than trusted.
 */
export function parseGrpcTimeout(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const m = /^(\d{1,8})([HMSmun])$/.exec(value.trim());
  if (!m) return undefined;
  return Number(m[1]) * (GRPC_UNIT_MS[m[2] as string] as number);
}

/** Parses a `Request-Timeout` value (non-negative seconds, decimals allowed) into milliseconds. */
export function parseRequestTimeout(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (!/^\d+(\.\d+)?$/.test(v)) return undefined;
  return Number(v) * 1000;
}

/**
 * The `wait` preference of a `Prefer` header (RFC 7240 s4.3: how many seconds the client is willing to wait
 * for the answer) in milliseconds; undefined when absent or not delta-seconds. Preference names are
 * case-insensitive; the first `wait` counts (s2: a repeated preference takes its first occurrence).
 */
export function parsePreferWait(value: string | null | undefined): number | undefined {
  if (!value) return undefined;
  for (const pref of value.split(",")) {
    const head = (pref.split(";")[0] ?? "").trim();
    const eq = head.indexOf("=");
    const token = (eq === -1 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (token !== "wait") continue;
    const raw =
      eq === -1
        ? ""
        : head
            .slice(eq + 1)
            .trim()
            .replace(/^"(.*)"$/, "$1");
    return /^\d{1,9}$/.test(raw) ? Number(raw) * 1000 : undefined;
  }
  return undefined;
}

/** Headers the caller's own deadline is read from. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * The caller's own budget in ms: the shortest of `grpc-timeout`, `Request-Timeout` and `Prefer: wait=N`
 * it sent; undefined when it sent none (malformed values are ignored, never trusted).
 */
export function callerDeadlineMs(headers: HeaderSource): number | undefined {
  let ms: number | undefined;
  for (const v of [
    parseGrpcTimeout(headers.get("grpc-timeout")),
    parseRequestTimeout(headers.get("request-timeout")),
    parsePreferWait(headers.get("prefer")),
  ]) {
    if (v !== undefined && (ms === undefined || v < ms)) ms = v;
  }
  return ms;
}

/**
 * A request's waiting budget: its revision timeout, shortened (never lengthened) by the caller's own
 * deadline ({@link callerDeadlineMs}).
 */
export function requestDeadlineMs(headers: HeaderSource, defaultMs: number): number {
  const caller = callerDeadlineMs(headers);
  return caller !== undefined && caller < defaultMs ? caller : defaultMs;
}

/**
 * Whether a caller that must be answered within `callerMs` should get its 503 now: its revision is cold and
 * its measured start (`expectedMs`) takes longer than the caller will wait. No estimate yet: never.
 */
export function outwaitsCaller(callerMs: number | undefined, expectedMs: number | undefined): boolean {
  return callerMs !== undefined && expectedMs !== undefined && callerMs < expectedMs;
}
