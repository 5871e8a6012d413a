/** Hooks on a response body as it flows to the client. */
export interface BodyHooks {
  onChunk(): void;
  /** Called once: the body ended, failed, was cancelled by the client or cut by `signal`. */
  onEnd(): void;
}

/**
 * Passes a body through chunk by chunk (SSE and other streams stay live), telling the timers about each write;
 * when `signal` fires mid-body the stream errors, as a timed-out Knative response is cut.
 */
export function trackBody(
  body: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  hooks: BodyHooks,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    signal.removeEventListener("abort", onAbort);
    hooks.onEnd();
  };
  let ctrl: ReadableStreamDefaultController<Uint8Array> | undefined;
  const onAbort = () => {
    reader.cancel(signal.reason).catch(() => {});
    try {
      // The client leaving is not an error worth a log line; a timeout cuts the stream as an error.
      if ((signal.reason as { name?: string } | undefined)?.name === "AbortError") ctrl?.close();
      else ctrl?.error(signal.reason);
    } catch {
      // already closed
    }
    end();
  };
  signal.addEventListener("abort", onAbort, { once: true });
  return new ReadableStream<Uint8Array>({
    start(c) {
      ctrl = c;
    },
    async pull(c) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          c.close();
          end();
          return;
        }
        hooks.onChunk();
        c.enqueue(value);
      } catch (err) {
        end();
        c.error(err);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
}
