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

/** Headers the caller's own deadline is read from. */
export interface HeaderSource {
  get(name: string): string | null;
}

/**
 * A request's waiting budget: its revision timeout, shortened (never lengthened) by a `grpc-timeout`
 * or `Request-Timeout` the client sent.
 */
export function requestDeadlineMs(headers: HeaderSource, defaultMs: number): number {
  let ms = defaultMs;
  for (const v of [
    parseGrpcTimeout(headers.get("grpc-timeout")),
    parseRequestTimeout(headers.get("request-timeout")),
  ]) {
    if (v !== undefined && v < ms) ms = v;
  }
  return ms;
}
