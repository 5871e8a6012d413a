/**
 * Runs `go` once the event loop has handled the I/O it had already received: a request granted a slot
 * forwards through this, so that a client whose disconnect reached the process before the grant is seen
 * as gone, and its request dropped, instead of being forwarded behind a closed socket (issue 26: 300
 * clients gone at once, up to 205 still reached the app).
 *
 * A grant usually runs inside the poll phase that read another request's end (or before it); the gone
 * clients' EOFs may sit later in the same batch. Node's first check phase (`setImmediate`) follows that
 * batch, whose EOFs have then run. node:http answers an EOF by ending its own side first and closes the
 * socket once that shutdown is done, in the next poll phase; the close (a response's `close`, which aborts a
 * Web `Request`'s signal) then runs in that turn's close phase, so the third check phase is where it is
 * known (two were enough where the EOF itself tells, as in the queue-proxy; the hook's hold on Node showed
 * 30 of 300 gone requests passed on with two). Elsewhere (Workers) a zero timer three times, which also lets
 * already delivered events run. Only requests that waited pay this: three loop turns.
 */
export function afterDeliveredIo(go: () => void): void {
  later(() => later(() => later(go)));
}

/** Node's `setImmediate` when there is one (not in this package's portable types), else a zero timer. */
const later: (fn: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
    ? (globalThis as unknown as { setImmediate(fn: () => void): void }).setImmediate
    : (fn) => setTimeout(fn, 0);

/** {@link afterDeliveredIo} as a promise, for async paths. */
export function deliveredIo(): Promise<void> {
  return new Promise((resolve) => afterDeliveredIo(resolve));
}
