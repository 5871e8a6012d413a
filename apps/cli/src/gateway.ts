import type { BodyBudget } from "@thaw/activation";
import { type Forwarder, prepareBody } from "@thaw/activator";
import {
  DashboardFeed,
  dashboardRoutes,
  type RevisionStatus,
  unauthorizedJson,
} from "@thaw/autoscaler-service";
import { type Clock, systemClock } from "@thaw/clock";
import type { IngressHook } from "@thaw/ingress-hook";
import {
  ROUTE_TOKEN_HEADER,
  type ThawIngressVariables,
  thawIngress,
  UPSTREAM_HEADER,
} from "@thaw/ingress-hook";
import { nodeConnectionEnded } from "@thaw/ingress-hook/node";
import {
  AddressRanges,
  Header,
  localOnlyRefusal,
  PROMETHEUS_CONTENT_TYPE,
  REVISION_HEADERS,
  type RevisionId,
  tokenMatches,
} from "@thaw/protocol";
import { Hono } from "hono";
import { authorized } from "./auth.js";
import { clientHeaders, peerOf } from "./client-headers.js";
import { toPod } from "./to-pod.js";

/** Where the hook says a request goes when the activator must carry it (proxy mode). */
export const ACTIVATOR_UPSTREAM = "activator.thaw.internal:0";

/** The activator API the gateway serves, by method and exact path (anything else is the apps'). */
const ACTIVATOR_API = new Set(["POST /v1/activate", "POST /v1/stats", "GET /v1/watch", "GET /v1/status"]);

/** What the gateway composes. */
export interface GatewayDeps {
  hook: IngressHook;
  /** The activator's Hono app, called in process. */
  activator: { fetch(req: Request): Response | Promise<Response> };
  /** HTTP forwarder to pods (the activator's keep-alive pool). */
  forward: Forwarder;
  /** Revision status for the API and page, and each revision's mode. */
  revisions(): RevisionStatus[];
  /** What the `/_thaw/` dashboard and its SSE stream show (default: a feed with no samples or events). */
  feed?: DashboardFeed;
  /** Keeps the dashboard stream's pings (default the system clock). */
  clock?: Clock;
  /** Hook decisions as JSON for `/_thaw/auth/*` (the forward-auth sub-app). */
  forwardAuth: { fetch(req: Request, env?: unknown): Response | Promise<Response> };
  /**
   * `host:port` a proxy in front reaches this gateway on, once it listens: what forward-auth names as the
   * activator's address (the activator is in this process, behind this port).
   */
  selfAddress?(): string | undefined;
  /** `POST /v1/scale`: the signed scale webhook receiver (CONTRACTS.md). */
  scaleWebhook?: (req: Request) => Promise<Response>;
  /** thaw.config.yaml `token`: every internal endpoint needs it when set. */
  token?: string;
  /** thaw.config.yaml `trustedProxies`: peers whose X-Forwarded-* and Forwarded are kept (default nobody). */
  trustedProxies?: AddressRanges;
  /** Request bodies up to this many bytes are kept so a forward that reached no app can be sent again. */
  bodyBufferCap?(revision: RevisionId): number;
  /** Bounds the bodies kept for a replay, all requests together (the activator's own, in `thaw up`). */
  bodyBudget?: BodyBudget;
  /** Prometheus text of the stack's components, served at `GET /_thaw/metrics` (docs/metrics.md). */
  metrics?(): string;
}

/**
 * The one port of `thaw up`: `/_thaw/` (the dashboard with its stream and `/_thaw/api/revisions`,
 * contract 4), `/_thaw/metrics` (Prometheus text, bearer token only: a scraper has no session),
 * `/_thaw/auth/*` (the hook as a forward-auth service), the activator API (`POST /v1/activate`,
 * `POST /v1/stats`, `GET /v1/watch`, `GET /v1/status`), all behind the token when one is set; everything else through the
 * ingress hook: warm revisions in serve mode go straight to a pod, the rest through the activator.
 */
export function createGateway(deps: GatewayDeps): Hono<{ Variables: ThawIngressVariables }> {
  const { token } = deps;
  const trusted = deps.trustedProxies ?? new AddressRanges();
  const app = new Hono<{ Variables: ThawIngressVariables }>();
  const clock = deps.clock ?? systemClock;
  const feed =
    deps.feed ??
    new DashboardFeed({
      source: { on: () => () => {}, revisions: deps.revisions, targetOf: () => undefined },
      clock,
    });
  if (!token) {
    // No token (laptop mode): the internal endpoints answer only loopback Hosts and same-origin callers.
    // Forward-auth is asked by a proxy, on the client's behalf and Host, so it is not one of them.
    app.use("/_thaw/*", async (c, next) => {
      if (c.req.path.startsWith("/_thaw/auth/")) return next();
      return localOnlyRefusal(c.req.raw) ?? next();
    });
  }
  dashboardRoutes(app, {
    feed,
    clock,
    ...(token ? { token } : {}),
  });
  const metrics = deps.metrics;
  if (metrics) {
    app.get("/_thaw/metrics", (c) =>
      authorized(c.req.raw, token)
        ? c.body(metrics(), 200, { "content-type": PROMETHEUS_CONTENT_TYPE })
        : unauthorizedJson(),
    );
  }
  app.all("/_thaw/auth/*", async (c) => {
    if (!authorized(c.req.raw, token, { query: true })) return unauthorizedJson();
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice("/_thaw/auth".length) || "/";
    url.searchParams.delete("token");
    // With the Node bindings, so that its hold can read the client's connection (nodeConnectionEnded).
    const res = await deps.forwardAuth.fetch(new Request(url, c.req.raw), c.env);
    // A proxy that routes on X-Thaw-Upstream (Caddy's recipe) must get a real address for the activator.
    const self = deps.selfAddress?.();
    if (self && res.headers.get(UPSTREAM_HEADER) === ACTIVATOR_UPSTREAM) {
      const headers = new Headers(res.headers);
      headers.set(UPSTREAM_HEADER, self);
      return new Response(res.body, { status: res.status, headers });
    }
    return res;
  });
  const scale = deps.scaleWebhook;
  if (scale) app.post("/v1/scale", (c) => scale(c.req.raw));
  app.all("/v1/*", async (c, next) => {
    if (!ACTIVATOR_API.has(`${c.req.method} ${c.req.path}`)) return next();
    if (!authorized(c.req.raw, token)) return unauthorizedJson();
    if (!token) {
      const refused = localOnlyRefusal(c.req.raw);
      if (refused) return refused;
    }
    // The activator reads revision headers as "proxy this request": an API call carries none.
    const headers = new Headers(c.req.raw.headers);
    for (const name of REVISION_HEADERS) headers.delete(name);
    return deps.activator.fetch(new Request(c.req.raw, { headers }));
  });
  // The data path: a client's internal and route-by-name headers go, the forwarding headers are the
  // gateway's own (or a trusted proxy's plus the peer).
  app.use("*", async (c, next) => {
    const raw = c.req.raw.headers;
    // An edge gateway in front cannot keep the client's Host (Workers set Host from the URL): it sends it as
    // X-Forwarded-Host with the stack's token in X-Thaw-Route-Token, and only then is that host routed on.
    const forwardedHost = raw.get("x-forwarded-host");
    const edgeHost =
      token && forwardedHost && tokenMatches(raw.get(ROUTE_TOKEN_HEADER) ?? "", token) ? forwardedHost : null;
    const headers = clientHeaders(raw, peerOf(c.env), trusted);
    if (edgeHost) headers.set("host", edgeHost);
    c.req.raw = new Request(c.req.raw, { headers });
    await next();
  });
  app.use(
    "*",
    thawIngress({ hook: deps.hook, setUpstreamHeader: false, connectionEnded: nodeConnectionEnded }),
  );
  app.all("*", async (c) => {
    const d = c.var.thaw;
    const req = c.req.raw;
    const status = deps
      .revisions()
      .find((r) => r.namespace === d.revision.namespace && r.name === d.revision.name);
    const direct = status?.mode === "serve" && d.upstream && d.upstream !== ACTIVATOR_UPSTREAM;
    let body = req.body;
    if (direct) {
      // Kept bytes count in the process's budget (shared with the activator) until the pod answers.
      const account = deps.bodyBudget?.open(d.key);
      try {
        const cap = deps.bodyBufferCap?.(d.revision) ?? 1024 * 1024;
        const prepared = await prepareBody(req.body, req.headers, cap, account);
        const outcome = await toPod(deps.forward, d.upstream as string, req, req.headers, prepared);
        if (outcome.kind === "answer") return outcome.response;
        // Nothing reached the app: the activator holds it until a pod is ready (another one, or this one back).
        if (prepared.touched()) return new Response("upstream failed\n", { status: 502 });
        body = prepared.next() as ReadableStream<Uint8Array> | null;
      } finally {
        account?.release();
      }
    }
    // A request the hook sent via the activator carries the revision headers already: passed on as it is,
    // not copied a third time (issue 30: the cold request's second pass).
    if (
      body === req.body &&
      req.headers.get(Header.namespace) === d.revision.namespace &&
      req.headers.get(Header.revision) === d.revision.name
    ) {
      return deps.activator.fetch(req);
    }
    const headers = new Headers(req.headers);
    headers.set(Header.namespace, d.revision.namespace);
    headers.set(Header.revision, d.revision.name);
    return deps.activator.fetch(
      new Request(req.url, {
        method: req.method,
        headers,
        body,
        signal: req.signal,
        duplex: "half",
      } as RequestInit),
    );
  });
  return app;
}
