import type { FetchLike } from "@thaw/activation";
import { type Dispatcher, request } from "undici";

/**
 * The backend prober's fetch on Node, over undici's `request`: unlike `fetch`, it sends a `host` header
 * as the request's Host (the passthrough-LB probe's `<rev>-private.<ns>`, knative-spec P2) instead of the
 * URL's authority. `dispatcher` is the forwarder's pool when there is one.
 */
export function createProbeFetch(dispatcher?: Dispatcher): FetchLike {
  return async (url, init) => {
    const u = new URL(url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => {
      headers[k] = v;
    });
    const res = await request(u.origin + u.pathname + u.search, {
      method: (init.method ?? "GET") as "GET",
      headers,
      signal: init.signal ?? undefined,
      ...(dispatcher ? { dispatcher } : {}),
    });
    const body = await res.body.text();
    // A Response cannot carry a body with these statuses; the prober only reads status and text.
    const empty = res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304;
    return new Response(empty ? null : body, { status: res.statusCode });
  };
}
