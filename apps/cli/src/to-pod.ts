import type { Forwarder, PreparedBody, UpstreamRequest } from "@thaw/activator";
import { canReplay, UpstreamError } from "@thaw/activator";
import {
  APP_FAILED_HEADER,
  APP_UNREACHED_HEADER,
  isAppFailed,
  isAppUnreached,
  stripHopByHop,
} from "@thaw/protocol";

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
    // The app broke under it before answering: routed again only as the replay rules allow.
    const failed =
      isAppFailed(res.status, res.headers) &&
      canReplay({
        method: req.method,
        headers: req.headers,
        body: body.mode,
        sent: true,
        streamTouched: body.touched(),
      });
    if (isAppUnreached(res.status, res.headers) || failed) {
      if (res.body !== null && !(res.body instanceof Uint8Array))
        void res.body.pipeTo(new WritableStream()).catch(() => {});
      return { kind: "unreached" };
    }
    const h = new Headers(res.headers);
    h.delete(APP_UNREACHED_HEADER);
    h.delete(APP_FAILED_HEADER);
    return { kind: "answer", response: new Response(res.body, { status: res.status, headers: h }) };
  } catch (err) {
    if (err instanceof UpstreamError && !err.sent) return { kind: "unreached" };
    return { kind: "answer", response: new Response("upstream failed\n", { status: 502 }) };
  }
}
