/**
 * TEMPORARY: the caller-deadline parser that @thaw/activation owns (grpc-timeout / Request-Timeout). The app
 * imports it from here only, so the switch to the real package is a change of this file.
 */
const GRPC_UNIT_MS: Record<string, number> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 0.001,
  n: 0.000001,
};

/** The caller's own time budget in ms from `grpc-timeout` or `Request-Timeout` (seconds), if any. */
export function callerTimeoutMs(headers: Headers): number | undefined {
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(headers.get("grpc-timeout") ?? "");
  if (grpc) return Number(grpc[1]) * (GRPC_UNIT_MS[grpc[2] as string] ?? 0);
  const rt = headers.get("request-timeout");
  if (rt !== null && /^\d+(\.\d+)?$/.test(rt.trim())) return Number(rt.trim()) * 1000;
  return undefined;
}
