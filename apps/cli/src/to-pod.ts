import type { Forwarder, PreparedBody, UpstreamRequest } from "@thaw/activator";
import { UpstreamError } from "@thaw/activator";
import { APP_UNREACHED_HEADER, isAppUnreached, stripHopByHop } from "@thaw/protocol";

/** A direct forward's outcome: the pod's answer, or "nothing reached the app" (send it another way). */
export type PodOutcome = { kind: "answer"; response: Response } | { kind: "unreached" };

/**
 * Forwards straight to a pod. "unreached" when no byte got to the app: the connection never opened, or the
 * pod's queue-proxy answered that the app refused it; the caller then routes the request again, whatever
 * its method. Any other failure after the request went out is a 502 (no blind replay).
 */
export async function toPod(
  forward: Forwarder,
  dest: string,
  req: Request,
  headers: Headers,
  body: PreparedBody,
): Promise<PodOutcome> {
  const url = new URL(req.url);
  const out = stripHopByHop(new Headers(headers));
  out.delete("host");
  const upstream: UpstreamRequest = {
    method: req.method,
    path: url.pathname + url.search,
    headers: out,
    body: body.next(),
    signal: req.signal,
  };
  try {
    const res = await forward(dest, upstream);
    if (isAppUnreached(res.status, res.headers)) {
      if (res.body !== null && !(res.body instanceof Uint8Array))
        void res.body.pipeTo(new WritableStream()).catch(() => {});
      return { kind: "unreached" };
    }
    const h = new Headers(res.headers);
    h.delete(APP_UNREACHED_HEADER);
    return { kind: "answer", response: new Response(res.body, { status: res.status, headers: h }) };
  } catch (err) {
    if (err instanceof UpstreamError && !err.sent) return { kind: "unreached" };
    return { kind: "answer", response: new Response("upstream failed\n", { status: 502 }) };
  }
}
