import { Hono } from "hono";
import { handleActivate } from "./api/activate.js";
import { checkBearer } from "./api/auth.js";
import { handleWatch } from "./api/watch.js";
import type { ActivatorDeps } from "./ports.js";
import {
  activatorProbeResponse,
  isKubeletProbe,
  networkProbeResponse,
  revisionFromRequest,
} from "./protocol-pending.js";
import { proxyRequest } from "./proxy-handler.js";
import { Telemetry } from "./telemetry.js";

/** The activator's Hono app plus the counters it keeps. */
export interface ActivatorApp {
  app: Hono;
  telemetry: Telemetry;
}

const UNKNOWN_HINT =
  "set Knative-Serving-Namespace and Knative-Serving-Revision, or use a <revision>.<namespace>.svc.<domain> host";

/**
 * The portable activator: probes in Knative's order (a.3), the `/v1` API for the ingress hook, then the
 * activation path for every other request. Runtime specifics (sockets, pools, Durable Objects) are in `deps`.
 */
export function createActivatorApp(deps: ActivatorDeps, telemetry = new Telemetry()): ActivatorApp {
  const app = new Hono();
  app.all("*", async (c) => {
    const req = c.req.raw;
    const headers = req.headers;
    // 1. kubelet health (P5): 200 while healthy, 500 with the reason otherwise.
    if (isKubeletProbe(headers)) {
      const h = deps.health?.() ?? { ok: true };
      return h.ok ? new Response(null, { status: 200 }) : new Response(h.reason, { status: 500 });
    }
    // 2. network probe: hash echo; any other request loses K-Network-Hash.
    const probe = headers.get("k-network-probe") ?? "";
    if (probe === "probe") return networkProbeResponse(headers);
    // 3. activator probe.
    if (probe !== "") return activatorProbeResponse(probe);
    const hasRevisionHeaders =
      headers.has("knative-serving-revision") || headers.has("knative-serving-namespace");
    if (!hasRevisionHeaders) {
      const path = new URL(req.url).pathname;
      const api = apiRoute(req.method, path);
      if (api) {
        const denied = checkBearer(headers, deps.token);
        if (denied) return denied;
        return api === "activate"
          ? handleActivate(req, deps)
          : api === "watch"
            ? handleWatch(req, deps)
            : Response.json(telemetry.snapshot());
      }
    }
    const fwd = headers.has("k-network-hash") ? new Request(req, { headers: withoutHash(headers) }) : req;
    const key = revisionFromRequest(withHost(fwd.headers, req.url));
    if (!key) return notFound(`no revision in the request: ${UNKNOWN_HINT}`);
    const config = await deps.revisions.lookup(key);
    if (!config) return notFound(`revision "${key.namespace}/${key.name}" not found`);
    return proxyRequest(fwd, key, config, deps, telemetry);
  });
  return { app, telemetry };
}

function apiRoute(method: string, path: string): "activate" | "watch" | "status" | undefined {
  if (method === "POST" && path === "/v1/activate") return "activate";
  if (method === "GET" && path === "/v1/watch") return "watch";
  if (method === "GET" && path === "/v1/status") return "status";
  return undefined;
}

function withoutHash(headers: Headers): Headers {
  if (!headers.has("k-network-hash")) return headers;
  const h = new Headers(headers);
  h.delete("k-network-hash");
  return h;
}

/** Host-based identity needs a Host; `app.request()` and some runtimes only have it in the URL. */
function withHost(headers: Headers, url: string): Headers {
  if (headers.has("host")) return headers;
  const h = new Headers(headers);
  h.set("host", new URL(url).host);
  return h;
}

function notFound(reason: string): Response {
  return new Response(`Error getting active endpoint: ${reason}\n`, {
    status: 404,
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}
