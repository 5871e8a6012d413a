import { type ApiError, Header } from "@thaw/protocol";
import type { Allow, Deny } from "./decision/decision.js";
import { REVISION_HEADER, UPSTREAM_HEADER } from "./decision/internal-headers.js";

/** Cache-Control of a warm allow. */
export const WARM_CACHE_CONTROL = "max-age=1, stale-while-revalidate=1";

/**
 * Headers of an allow answer: where to route, the revision, and how long a proxy may cache it. An
 * activator-bound answer also carries the activator's revision headers (`Knative-Serving-Namespace`,
 * `Knative-Serving-Revision`), for the proxy to set on the request it forwards there; their presence is
 * what tells the proxy to route to the activator (see infra/nginx/nginx.conf).
 */
export function allowHeaders(d: Allow): Headers {
  const h = new Headers();
  if (d.upstream) h.set(UPSTREAM_HEADER, d.upstream);
  h.set(REVISION_HEADER, d.key);
  if (d.via === "activator") {
    h.set(Header.namespace, d.revision.namespace);
    h.set(Header.revision, d.revision.name);
  }
  // Warm answers may be cached per revision for a second (nginx proxy_cache), and used one more second
  // while a background request refreshes them; a cold answer reports a fresh activation and is not worth
  // pinning.
  h.set("cache-control", d.warm ? WARM_CACHE_CONTROL : "no-store");
  return h;
}

/** The ApiError body of a deny. */
export function denyBody(d: Deny): ApiError {
  return { error: { code: d.code, message: d.message } };
}

/** A deny as a client sees it: its status, a JSON ApiError, Retry-After when the wait may succeed later. */
export function denyResponse(d: Deny): Response {
  const h = new Headers({ "content-type": "application/json", "cache-control": "no-store" });
  if (d.retryAfterSeconds !== undefined) h.set("retry-after", String(d.retryAfterSeconds));
  return new Response(JSON.stringify(denyBody(d)), { status: d.status, headers: h });
}

/**
 * A deny for nginx. auth_request only passes 2xx, 401 and 403 (anything else becomes a 500), so the hook
 * answers 403 and carries the real status, Retry-After and body in headers that the nginx config turns
 * back into the client's answer (`auth_request_set` + `error_page 403 = @thaw_denied`).
 */
export function nginxDenyResponse(d: Deny): Response {
  const h = new Headers({ "content-type": "application/json", "cache-control": "no-store" });
  h.set("x-thaw-status", String(d.status));
  h.set("x-thaw-error", JSON.stringify(denyBody(d)));
  if (d.retryAfterSeconds !== undefined) h.set("x-thaw-retry-after", String(d.retryAfterSeconds));
  return new Response(JSON.stringify(denyBody(d)), { status: 403, headers: h });
}
