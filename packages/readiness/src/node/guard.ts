import { ProbeError, ProbeErrorCode } from "../errors.js";

/**
 * Settles a callback-style operation once: on success, on failure, when `signal` aborts, or after
 * `timeoutMs` (a backstop for callers that pass a signal without a deadline). `cleanup` always runs.
 */
export function settleOnce<T>(
  signal: AbortSignal,
  timeoutMs: number,
  cleanup: () => void,
  start: (resolve: (v: T) => void, reject: (e: unknown) => void) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      cleanup();
      fn();
    };
    const onAbort = () => finish(() => reject(signal.reason));
    const timer = setTimeout(
      () =>
        finish(() => reject(new ProbeError(ProbeErrorCode.Timeout, `probe timed out after ${timeoutMs}ms`))),
      Math.max(1, timeoutMs),
    );
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      start(
        (v) => finish(() => resolve(v)),
        (e) => finish(() => reject(e)),
      );
    } catch (err) {
      finish(() => reject(err));
    }
  });
}
