/**
 * Workers: calls `release` once `res`'s body has ended, its bytes pumped by the runtime through an
 * IdentityTransformStream (native stream to native stream) instead of through a JavaScript stream a chunk
 * at a time (releaseAtBodyEnd, the portable one: about 150 µs of CPU per warm request through `wrangler
 * dev`, see the README's benchmark). A body the client stops reading ends the pipe at the pod's next
 * bytes (or its end), when the runtime's pipe tries to write them: the pod is busy until then anyway.
 * `keepAlive` holds the request open until the pipe has settled.
 */
export function releaseAtBodyEndNative(
  res: Response,
  release: () => void,
  keepAlive?: (p: Promise<unknown>) => void,
): Response {
  const body = res.body;
  if (!body || res.status === 101) {
    release();
    return res;
  }
  const pass = new IdentityTransformStream();
  const piped = body.pipeTo(pass.writable).then(release, release);
  keepAlive?.(piped);
  return new Response(pass.readable, res);
}
