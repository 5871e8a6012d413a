import { Header } from "@thaw/protocol";
import { type Context, Hono } from "hono";
import type { Cold } from "./decision/decision.js";
import { endDecisionSpan } from "./decision/decision-span.js";
import type { IngressHook } from "./decision/hook.js";
import { findInternalHeaders } from "./decision/internal-headers.js";
import { type HookRequest, normalizeHost, pathOf } from "./decision/request-view.js";
import { type ConnectionEnded, leftWhileHeld } from "./left-while-held.js";
import { allowHeaders, denyResponse, nginxDenyResponse } from "./respond.js";
import { activateOrPage, answerPoll, isPoll, pageFor, wantsPage } from "./waiting-page/hold.js";

/** The proxy dialects the forward-auth service speaks. */
export type Dialect = "nginx" | "ingress-nginx" | "traefik" | "envoy";

/**
 * The forward-auth service as a Hono app, to serve alone (`thaw-ingress-hook`) or mount (`thaw up` mounts
 * it at /_thaw/auth). Routes: `/nginx` (auth_request), `/ingress-nginx` (its `auth-url`), `/traefik` (forwardAuth), `/envoy/<original path>`
 * (ext_authz HTTP service with path_prefix `/envoy`), and `/` which tells the dialect from the headers.
 */
export function forwardAuthApp(hook: IngressHook, opts: { connectionEnded?: ConnectionEnded } = {}): Hono {
  const app = new Hono();
  const ended = opts.connectionEnded;
  const answer = async (c: Context, dialect: Dialect, envoyPath?: string): Promise<Response> => {
    const raw = c.req.raw;
    const view = viewOf(raw, dialect, envoyPath);
    const nginx = dialect === "nginx";
    // ingress-nginx takes no named location from an Ingress: its requests are held as before.
    const pages = dialect !== "ingress-nginx";
    const first = hook.tryDecide(view, hook.clock.now());
    if (pages && first.kind !== "deny" && isPoll(view) && hook.waitingPage(first.key)) {
      // nginx cannot pass an auth answer's body: its @thaw_page location asks /nginx/page for it.
      if (nginx) return pageRedirect();
      const polled = await answerPoll(hook, first);
      if (polled instanceof Response) return polled;
    }
    const span = hook.startSpan(view);
    const d = first.kind === "cold" ? await activateOrPage(hook, first, view, span, pages) : first;
    if (d === "page") {
      span?.end();
      return nginx ? pageRedirect() : pageFor(hook, first as Cold, view.method);
    }
    if (span) endDecisionSpan(span, d);
    const deny = dialect.endsWith("nginx") ? nginxDenyResponse : denyResponse;
    if (d.kind === "deny") return deny(d);
    // Held while cold: a proxy whose client left meanwhile gets a deny, not the route (see leftWhileHeld).
    const left =
      first.kind === "cold" ? await leftWhileHeld(raw.signal, d.key, ended && (() => ended(c))) : undefined;
    if (left) return deny(left);
    const headers = allowHeaders(d);
    if (d.warm && hook.hintsHost(view.host)) headers.set("cache-control", "no-store");
    if (dialect === "ingress-nginx") {
      // ingress-nginx picks a location's backend before its auth call, so no answer can switch it: the
      // rendered Ingress (apps/cli/src/k8s/ingress.ts) sends every request to the activator, which needs the
      // revision on warm requests too (auth-response-headers copies these onto the request).
      headers.set(Header.namespace, d.revision.namespace);
      headers.set(Header.revision, d.revision.name);
    }
    if (dialect === "envoy") {
      // ext_authz removes these from the upstream request; the route's request_headers_to_remove is the
      // second line of defence.
      const outside = findInternalHeaders(raw.headers);
      if (outside.length > 0) headers.set("x-envoy-auth-headers-to-remove", outside.join(","));
    }
    return new Response(null, { status: 200, headers });
  };
  app.all("/nginx", (c) => answer(c, "nginx"));
  // nginx's @thaw_page location (infra/nginx/thaw-auth.conf): the page's body, or its poll's answer.
  app.all("/nginx/page", async (c) => {
    const view = viewOf(c.req.raw, "nginx");
    const first = hook.tryDecide(view, hook.clock.now());
    if (first.kind === "deny") return denyResponse(first);
    if (!isPoll(view)) {
      if (!wantsPage(view)) return new Response("not a page request\n", { status: 400 });
      return pageFor(hook, first, view.method);
    }
    const polled = await answerPoll(hook, first);
    return polled instanceof Response ? polled : denyResponse(polled);
  });
  app.all("/ingress-nginx", (c) => answer(c, "ingress-nginx"));
  app.all("/traefik", (c) => answer(c, "traefik"));
  app.all("/envoy", (c) => answer(c, "envoy", "/"));
  app.all("/envoy/", (c) => answer(c, "envoy", "/"));
  app.all("/envoy/:rest{.+}", (c) => answer(c, "envoy", `/${c.req.param("rest")}`));
  app.all("/", (c) => answer(c, detectDialect(c.req.raw.headers)));
  return app;
}

/**
 * nginx's auth_request passes no body of its subrequest, only 2xx, 401 and 403: 401 says "this one gets the
 * waiting page", which `error_page 401 = @thaw_page` fetches from `/nginx/page` (403 stays the deny).
 */
function pageRedirect(): Response {
  return new Response(null, { status: 401, headers: { "cache-control": "no-store" } });
}

/** Traefik sends X-Forwarded-Uri, the nginx recipe sets X-Original-URI; anything else is read like Envoy. */
export function detectDialect(headers: Headers): Dialect {
  if (headers.has("x-forwarded-uri")) return "traefik";
  if (headers.has("x-original-uri")) return "nginx";
  return "envoy";
}

/** Builds the decision's view of the original request from what each proxy sends. */
export function viewOf(raw: Request, dialect: Dialect, envoyPath?: string): HookRequest {
  const h = raw.headers;
  const hostHeader = h.get("host") ?? "";
  switch (dialect) {
    case "nginx":
      // An auth subrequest is always a GET: the recipe names the client's method in X-Original-Method.
      return {
        method: h.get("x-original-method") ?? raw.method,
        host: normalizeHost(h.get("x-forwarded-host") ?? hostHeader),
        path: pathOf(h.get("x-original-uri") ?? "/"),
        headers: h,
      };
    case "ingress-nginx": {
      // ingress-nginx sets X-Original-URL and X-Original-Method on its auth call (overwriting any client
      // value) but passes the client's other headers along, so nothing else names the request.
      const url = parseUrl(h.get("x-original-url"));
      return {
        method: h.get("x-original-method") ?? raw.method,
        host: normalizeHost(url?.host ?? ""),
        path: pathOf(url ? url.pathname + url.search : "/"),
        headers: h,
      };
    }
    case "traefik":
      return {
        method: h.get("x-forwarded-method") ?? raw.method,
        host: normalizeHost(h.get("x-forwarded-host") ?? hostHeader),
        path: pathOf(h.get("x-forwarded-uri") ?? "/"),
        headers: h,
      };
    case "envoy":
      return {
        method: raw.method,
        host: normalizeHost(hostHeader),
        path: pathOf(envoyPath ?? "/"),
        headers: h,
      };
  }
}

function parseUrl(raw: string | null): URL | undefined {
  if (!raw) return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}
