import { type Forwarder, UpstreamError } from "./ports.js";

/**
 * A forwarder over Web `fetch` (Workers, or anywhere without a pool). `fetch` does not say whether a failed
 * request reached the pod, so every failure counts as "sent": only idempotent or keyed requests replay.
 */
export function createFetchForwarder(fetchFn: typeof fetch = fetch, scheme = "http"): Forwarder {
  return async (dest, req) => {
    const init: RequestInit & { duplex?: "half" } = {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      redirect: "manual",
    };
    if (req.body instanceof ReadableStream) init.duplex = "half";
    let res: Response;
    try {
      res = await fetchFn(`${scheme}://${dest}${req.path}`, init);
    } catch (err) {
      if (req.signal.aborted) throw req.signal.reason;
      throw new UpstreamError(err instanceof Error ? err.message : String(err), true);
    }
    return { status: res.status, headers: res.headers, body: res.body, raw: res };
  };
}
