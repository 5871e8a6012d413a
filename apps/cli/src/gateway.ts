import type { Forwarder, UpstreamRequest } from "@thaw/activator";
import { UpstreamError } from "@thaw/activator";
import type { RevisionStatus } from "@thaw/autoscaler-service";
import type { IngressHook } from "@thaw/ingress-hook";
import { type ThawIngressVariables, thawIngress } from "@thaw/ingress-hook";
import { Header, stripHopByHop } from "@thaw/protocol";
import { Hono } from "hono";
import { statusPage } from "./status-page.js";

/** Where the hook says a request goes when the activator must carry it (proxy mode). */
export const ACTIVATOR_UPSTREAM = "activator.thaw.internal:0";

/** What the gateway composes. */
export interface GatewayDeps {
  hook: IngressHook;
  /** The activator's Hono app, called in process. */
  activator: { fetch(req: Request): Response | Promise<Response> };
  /** HTTP forwarder to pods (the activator's keep-alive pool). */
  forward: Forwarder;
  /** Revision status for the API and page, and each revision's mode. */
  revisions(): RevisionStatus[];
  /** Hook decisions as JSON for `/_thaw/auth/*` (the forward-auth sub-app). */
  forwardAuth: { fetch(req: Request): Response | Promise<Response> };
  /** `POST /v1/scale`: the signed scale webhook receiver (CONTRACTS.md). */
  scaleWebhook?: (req: Request) => Promise<Response>;
  /**
   * The stack's token. An edge gateway in front cannot keep the client's Host (Workers set Host from the
   * URL), so it sends it as `X-Forwarded-Host` with this token in `X-Thaw-Route-Token`; only then is the
   * forwarded host believed and routed on.
   */
  edgeToken?: string;
}

/** Equal strings, compared in time that depends only on the length. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * The one port of `thaw up`: `/_thaw/` (status page), `/_thaw/api/revisions` (contract 4), `/_thaw/auth/*`
 * (the hook as a forward-auth service), `/v1/*` (the activator API), and everything else through the
 * ingress hook: warm revisions in serve mode go straight to a pod, the rest through the activator.
 */
export function createGateway(deps: GatewayDeps): Hono<{ Variables: ThawIngressVariables }> {
  const app = new Hono<{ Variables: ThawIngressVariables }>();
  app.get("/_thaw", (c) => c.redirect("/_thaw/"));
  app.get("/_thaw/", (c) => c.html(statusPage()));
  app.get("/_thaw/api/revisions", (c) => c.json(deps.revisions()));
  app.all("/_thaw/auth/*", (c) => {
    const url = new URL(c.req.url);
    url.pathname = url.pathname.slice("/_thaw/auth".length) || "/";
    return deps.forwardAuth.fetch(new Request(url, c.req.raw));
  });
  const scale = deps.scaleWebhook;
  if (scale) app.post("/v1/scale", (c) => scale(c.req.raw));
  app.all("/v1/*", (c) => deps.activator.fetch(c.req.raw));
  app.use("*", async (c, next) => {
    const fwd = c.req.header("x-forwarded-host");
    const token = c.req.header("x-thaw-route-token");
    if (deps.edgeToken && fwd && token !== undefined && sameText(token, deps.edgeToken)) {
      const headers = new Headers(c.req.raw.headers);
      headers.set("host", fwd);
      c.req.raw = new Request(c.req.raw, { headers });
    }
    await next();
  });
  app.use("*", thawIngress({ hook: deps.hook, setUpstreamHeader: false }));
  app.all("*", async (c) => {
    const d = c.var.thaw;
    const status = deps
      .revisions()
      .find((r) => r.namespace === d.revision.namespace && r.name === d.revision.name);
    const direct = status?.mode === "serve" && d.upstream && d.upstream !== ACTIVATOR_UPSTREAM;
    if (direct) {
      const res = await toPod(deps.forward, d.upstream as string, c.req.raw);
      if (res) return res;
    }
    const headers = new Headers(c.req.raw.headers);
    headers.set(Header.namespace, d.revision.namespace);
    headers.set(Header.revision, d.revision.name);
    return deps.activator.fetch(new Request(c.req.raw, { headers }));
  });
  return app;
}

/** Forwards to a pod; undefined when the connection never opened (the activator then takes the request). */
async function toPod(forward: Forwarder, dest: string, req: Request): Promise<Response | undefined> {
  const url = new URL(req.url);
  const headers = stripHopByHop(new Headers(req.headers));
  headers.delete("host");
  const host = req.headers.get("host");
  if (host) headers.set("x-forwarded-host", host);
  const upstream: UpstreamRequest = {
    method: req.method,
    path: url.pathname + url.search,
    headers,
    body: req.body,
    signal: req.signal,
  };
  try {
    const res = await forward(dest, upstream);
    return new Response(res.body, { status: res.status, headers: res.headers });
  } catch (err) {
    if (err instanceof UpstreamError && !err.sent) return undefined;
    return new Response("upstream failed\n", { status: 502 });
  }
}
