import type { Clock } from "@thaw/clock";
import { ProbeError, ProbeErrorCode } from "./errors.js";

/** The reason a finished attempt's signal aborts with (nothing reads it but a transport still connecting). */
const FINISHED = new ProbeError(ProbeErrorCode.Timeout, "probe attempt finished");

/**
 * Runs `fn` with a signal that aborts after `timeoutMs` on `clock` or when `outer` aborts, and settles as
 * soon as that happens even if `fn` ignores the signal. The timeout is the clock's, so tests drive it.
 */
export async function withDeadline<T>(
  clock: Clock,
  timeoutMs: number,
  outer: AbortSignal | undefined,
  fn: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ac = new AbortController();
  if (outer?.aborted) throw outer.reason;
  const onOuter = () => ac.abort(outer?.reason);
  outer?.addEventListener("abort", onOuter, { once: true });
  const timer = clock.setTimeout(
    () => ac.abort(new ProbeError(ProbeErrorCode.Timeout, `probe timed out after ${timeoutMs}ms`)),
    timeoutMs,
  );
  const aborted = new Promise<never>((_, reject) => {
    ac.signal.addEventListener("abort", () => reject(ac.signal.reason), { once: true });
  });
  try {
    return await Promise.race([fn(ac.signal), aborted]);
  } finally {
    clock.clearTimeout(timer);
    outer?.removeEventListener("abort", onOuter);
    // Let a transport that is still connecting give up now the answer is known.
    if (!ac.signal.aborted) ac.abort(FINISHED);
  }
}
