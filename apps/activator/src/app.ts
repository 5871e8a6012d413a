import { BodyBudget } from "@thaw/activation";
import {
  activatorHealthResponse,
  activatorProbeResponse,
  activeEndpointNotFoundResponse,
  answerNetworkProbe,
  localOnlyRefusal,
  resolveRevision,
  revisionKey,
  revisionNotFoundMessage,
  stripNetworkHash,
} from "@thaw/protocol";
import { Hono } from "hono";
import { handleActivate } from "./api/activate.js";
import { checkBearer } from "./api/auth.js";
import { handleStats } from "./api/stats.js";
import { handleWatch } from "./api/watch.js";
import type { ActivatorDeps } from "./ports.js";
import { proxyRequest } from "./proxy-handler.js";
import { Telemetry } from "./telemetry.js";

/** The activator's Hono app plus the counters it keeps. */
export interface ActivatorApp {
  app: Hono;
  telemetry: Telemetry;
}

/**
 * Set in the runtime's `env` (Hono's `c.env`) for a request another path of this activator already took and
 * counted, then handed over (the Node fast path, after a forward that got no answer): it is not counted again.
 */
export const HANDED_OFF = Symbol("thaw.activator.handedOff");

const UNKNOWN_HINT =
  "set Knative-Serving-Namespace and Knative-Serving-Revision, or use a <revision>.<namespace>.svc.<domain> host";

/**
 * The portable activator: probes in Knative's order (a.3), the `/v1` API for the ingress hook, then the
 * activation path for every other request. Runtime specifics (sockets, pools, Durable Objects) are in `deps`.
 */
export function createActivatorApp(given: ActivatorDeps, telemetry = new Telemetry()): ActivatorApp {
  const deps = given.bodyBudget ? given : { ...given, bodyBudget: new BodyBudget() };
  const app = new Hono();
  // Knative's check: an error text makes the kubelet probe fail with 500 and that text.
  const healthCheck = () => {
    const h = deps.health?.() ?? { ok: true };
    return h.ok ? undefined : h.reason;
  };
  app.all("*", async (c) => {
    const req = c.req.raw;
    const headers = req.headers;
    // 1. kubelet health (P5): 200 while healthy, 500 with the reason otherwise.
    const health = await activatorHealthResponse(req, { terminating: false, check: healthCheck });
    if (health) return health;
    // 2. network probe: hash echo; any other request loses K-Network-Hash.
    const network = answerNetworkProbe(req);
    if (network) return network;
    // 3. activator probe.
    const probe = activatorProbeResponse(req);
    if (probe) return probe;
    const hasRevisionHeaders =
      headers.has("knative-serving-revision") || headers.has("knative-serving-namespace");
    if (!hasRevisionHeaders) {
      const path = new URL(req.url).pathname;
      const api = apiRoute(req.method, path);
      if (api) {
        // No token (laptop mode): loopback Hosts and same-origin callers only.
        const denied = deps.token
          ? checkBearer(headers, deps.token)
          : deps.localOnlyWithoutToken
            ? localOnlyRefusal(req)
            : undefined;
        if (denied) return denied;
        if (api === "activate") return handleActivate(req, deps);
        if (api === "watch") return handleWatch(req, deps);
        if (api === "stats") return handleStats(req, deps);
        return Response.json(telemetry.snapshot());
      }
    }
    const fwd = stripNetworkHash(req);
    const found = resolveRevision(fwd);
    if (!found) return activeEndpointNotFoundResponse(`no revision in the request: ${UNKNOWN_HINT}`);
    const key = { namespace: found.namespace, name: found.name };
    const config = await deps.revisions.lookup(key);
    if (!config) return activeEndpointNotFoundResponse(revisionNotFoundMessage(revisionKey(key)));
    const handedOff = (c.env as Record<symbol, unknown> | undefined)?.[HANDED_OFF] === true;
    return proxyRequest(fwd, key, config, deps, telemetry, handedOff);
  });
  return { app, telemetry };
}

function apiRoute(method: string, path: string): "activate" | "watch" | "stats" | "status" | undefined {
  if (method === "POST" && path === "/v1/activate") return "activate";
  if (method === "POST" && path === "/v1/stats") return "stats";
  if (method === "GET" && path === "/v1/watch") return "watch";
  if (method === "GET" && path === "/v1/status") return "status";
  return undefined;
}
