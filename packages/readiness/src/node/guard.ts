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
      () => finish(() => reject(new ProbeError(ProbeErrorCode.Timeout, `probe timed out after ${timeoutMs}ms`))),
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

/** Groups ordered header pairs by name (case-insensitive, first spelling kept); only the first User-Agent counts, as in Go. */
export function groupHeaders(
  pairs: ReadonlyArray<readonly [string, string]>,
  lowercase = false,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const spelling = new Map<string, string>();
  for (const [name, value] of pairs) {
    const key = name.toLowerCase();
    const existing = spelling.get(key);
    if (existing === undefined) {
      const n = lowercase ? key : name;
      spelling.set(key, n);
      out[n] = value;
      continue;
    }
    if (key === "user-agent" || key === "host") continue;
    const prev = out[existing] as string | string[];
    out[existing] = Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}
