/**
 * `res` with `release` called once its body has been read to the end, has failed or was cancelled: a pod
 * slot is busy until then, not only until the head arrives. Without a body, or for a 101 (which carries a
 * socket, not a body), `release` runs at once and `res` is returned as it is. The body is read no faster
 * than the client takes it (no chunk read ahead).
 */
export function releaseAtBodyEnd(res: Response, release: () => void): Response {
  const body = res.body;
  if (!body || res.status === 101) {
    release();
    return res;
  }
  const reader = body.getReader();
  const tracked = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const chunk = await reader.read();
          if (chunk.done) {
            release();
            controller.close();
          } else controller.enqueue(chunk.value);
        } catch (err) {
          release();
          controller.error(err);
        }
      },
      cancel(reason) {
        release();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(tracked, res);
}
