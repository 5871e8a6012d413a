/**
 * Workers entry: the edge gateway (CONTRACTS.md "Origins"). The hook middleware answers warm requests from
 * its cache and holds cold ones on one `POST /v1/activate` to the activator Worker (service binding
 * ACTIVATOR, a Durable Object per revision); every allowed request then goes to ORIGIN_URL, the one name of
 * the origin, with the client's Host in `X-Forwarded-Host` (Workers always set Host from the URL).
 */
import { systemClock } from "@thaw/clock";
import { apiErrorResponse, dropConnectionNamed, ErrorCode, tokenMatches } from "@thaw/protocol";
import { Hono, type MiddlewareHandler } from "hono";
import { getPath } from "hono/utils/url";
import { parseServiceRoutes } from "./config.js";
import { httpActivatorClient } from "./decision/activator-client.js";
import type { Allow } from "./decision/decision.js";
import { activatorStatsSink } from "./decision/held-stats-sink.js";
import { IngressHook } from "./decision/hook.js";
import { ROUTE_TOKEN_HEADER } from "./decision/internal-headers.js";
import { envoyDecoratorResolver, hostTableResolver, routeHeadersResolver } from "./decision/resolvers.js";
import { type LoadReport, LoadReporter } from "./load-reporter.js";
import { holdingSlot, passWarm, type ThawIngressVariables, thawIngress } from "./middleware.js";
import { parseWarmRules } from "./warm-rules.js";
import { readEdgeVars } from "./worker-vars.js";

/** Bindings and vars of wrangler.jsonc. */
export interface Env {
  /** Service binding of the activator Worker (its POST /v1/activate). */
  ACTIVATOR: Fetcher;
  /** Where allowed requests go: a Thaw origin's gateway, or the platform's address for the service. */
  ORIGIN_URL: string;
  /** A Thaw origin's token, sent as X-Thaw-Route-Token so it believes X-Forwarded-Host; empty otherwise. */
  ORIGIN_TOKEN?: string;
  /** JSON list of `{ name, namespace, hosts, paths }`, the routing subset of thaw.config.yaml. */
  THAW_SERVICES: string;
  /** Bearer token of the activator Worker's /v1 API, and of this gateway's `GET /_thaw/edge`. */
  ACTIVATOR_TOKEN?: string;
  ROUTE_TOKEN?: string;
  /** JSON list of wake-hint rules, thaw.config.yaml's `warm:` (docs/warm.md); empty or unset = none. */
  THAW_WARM?: string;
  ACTIVATION_TIMEOUT_MS?: string;
  WARM_TTL_MS?: string;
}

/** A held request's keep-alive timer while it waits for a pod slot (ThawIngressOptions.holdTickMs). */
const HOLD_TICK_MS = 250;

/** Retry-After when the origin cannot be reached at all (no cold-start history to go by). */
const UNREACHABLE_RETRY_AFTER_S = 1;

type WorkerHonoEnv = { Bindings: Env; Variables: ThawIngressVariables };
type Gate = {
  env: Env;
  hook: IngressHook;
  mw: MiddlewareHandler<WorkerHonoEnv>;
  origin: URL;
  originToken: string;
  load: LoadReporter;
  /** Requests this isolate's gateway has been handed (every route but `/_thaw/edge`). */
  received: number;
};
// One hook per isolate and env, built on first use (not at import), so its warm cache outlives requests.
const gates = new WeakMap<Env, Gate | Error>();

/** The hook, middleware and origin for this env, validated once; a bad var is an Error naming it. */
export function gateFor(env: Env): Gate | Error {
  const known = gates.get(env);
  if (known) return known;
  const vars = readEdgeVars(env);
  let gate: Gate | Error;
  if (!vars.ok) {
    gate = new Error(vars.issues.map((i) => `${i.path}: ${i.message}`).join("\n"));
  } else {
    const routes = parseServiceRoutes({ services: vars.value.services });
    const warm = routes.ok ? parseWarmRules(vars.value.warm, routes.value, "THAW_WARM") : undefined;
    if (!routes.ok) {
      gate = new Error(routes.issues.map((i) => `THAW_SERVICES: ${i.path}: ${i.message}`).join("\n"));
    } else if (warm && !warm.ok) {
      gate = new Error(warm.issues.map((i) => `${i.path}: ${i.message}`).join("\n"));
    } else {
      // A service's requests (held while cold, or warm) go no faster than the ready pods take them
      // (containerConcurrency slots per pod the activation answer names, first come first served, at most
      // maxQueue waiting; see CapacityRelease), each slot kept until the response's body has ended: the
      // gateway has no activator on its request path.
      const byKey = new Map(routes.value.map((s) => [`${s.namespace}/${s.name}`, s]));
      const hook = new IngressHook({
        containerConcurrencyFor: (key) => byKey.get(key)?.containerConcurrency ?? 0,
        maxQueueFor: (key) => byKey.get(key)?.maxQueue,
        waitingPageFor: (key) => byKey.get(key)?.waitingPage,
        clock: systemClock,
        random: Math.random,
        resolvers: [routeHeadersResolver(), envoyDecoratorResolver(), hostTableResolver(routes.value)],
        activator: httpActivatorClient({
          baseUrl: "http://activator.internal",
          fetch: (r) => env.ACTIVATOR.fetch(r),
          clock: systemClock,
          ...(env.ACTIVATOR_TOKEN ? { token: env.ACTIVATOR_TOKEN } : {}),
        }),
        ...(env.ROUTE_TOKEN ? { routeToken: env.ROUTE_TOKEN } : {}),
        // The requests held here are load: to the activator Worker, which passes them to the Thaw origin or
        // its edge decider (docs/demand.md).
        heldStats: activatorStatsSink({
          baseUrl: "http://activator.internal",
          fetch: (r) => env.ACTIVATOR.fetch(r),
          podName: "thaw-edge-gateway",
          ...(env.ACTIVATOR_TOKEN ? { token: env.ACTIVATOR_TOKEN } : {}),
        }),
        activationTimeoutMs: vars.value.activationTimeoutMs,
        warmTtlMs: vars.value.warmTtlMs,
        // `warm:` rules: a request on the path sends wake hints through the activator Worker's /v1/activate.
        ...(warm?.ok ? { warm: warm.value } : {}),
      });
      gate = {
        env,
        hook,
        mw: thawIngress<WorkerHonoEnv>({ hook, holdTickMs: HOLD_TICK_MS }),
        origin: vars.value.origin,
        originToken: env.ORIGIN_TOKEN ?? "",
        load: new LoadReporter(Date.now()),
        received: 0,
      };
    }
  }
  gates.set(env, gate);
  return gate;
}

const app = new Hono<WorkerHonoEnv>();

/** The gateway's own status route: answered by the Hono app, never passed on. */
const EDGE_STATUS_PATH = "/_thaw/edge";

// The gateway's own counters (hook decisions, activator calls), for operators and the end-to-end test.
app.get(EDGE_STATUS_PATH, async (c) => {
  const gate = gateFor(c.env);
  if (gate instanceof Error) return c.text(`gateway misconfigured:\n${gate.message}\n`, 500);
  const token = c.env.ACTIVATOR_TOKEN ?? "";
  if (token !== "" && !tokenMatches(c.req.header("authorization") ?? "", `Bearer ${token}`)) {
    return apiErrorResponse(
      ErrorCode.ERR_UNAUTHORIZED,
      "a valid Authorization: Bearer <ACTIVATOR_TOKEN> is required",
    );
  }
  // The activator Worker's per-revision counters (wakes sent to the origin, cold starts), through the binding.
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  const activator = await c.env.ACTIVATOR.fetch("http://activator.internal/v1/status", { headers }).then(
    async (r) => (r.ok ? ((await r.json()) as unknown) : { error: `activator answered ${r.status}` }),
    (err: unknown) => ({ error: `activator unreachable: ${String(err)}` }),
  );
  return c.json({ received: gate.received, hook: gate.hook.stats, slots: gate.hook.podSlots(), activator });
});

app.use("*", async (c, next) => {
  const gate = gateFor(c.env);
  if (gate instanceof Error) return c.text(`gateway misconfigured:\n${gate.message}\n`, 500);
  gate.received++;
  const denied = await gate.mw(c, next);
  // A denial from the hook (the origin could not be woken) tells the client when to come back.
  if (denied instanceof Response && denied.status === 503 && !denied.headers.has("retry-after")) {
    denied.headers.set("retry-after", String(UNREACHABLE_RETRY_AFTER_S));
  }
  return denied;
});

app.all("*", (c) =>
  forward(gateFor(c.env) as Gate, c.req.raw, c.var.thaw, (p) => c.executionCtx.waitUntil(p)),
);

/** An allowed request to the origin, its load counted and reported. */
async function forward(
  gate: Gate,
  req: Request,
  allow: Allow,
  waitUntil: (p: Promise<void>) => void,
): Promise<Response> {
  const u = new URL(req.url);
  // The client's Connection-named fields go before ours are set, so it cannot name ours away.
  const headers = dropConnectionNamed(new Headers(req.headers));
  headers.set("x-forwarded-host", req.headers.get("host") ?? u.host);
  headers.set("x-forwarded-proto", u.protocol.replace(":", ""));
  if (gate.originToken) headers.set(ROUTE_TOKEN_HEADER, gate.originToken);
  const target = new URL(u.pathname + u.search, gate.origin);
  const rev = allow.revision;
  gate.load.requestIn(rev, Date.now());
  try {
    return await fetch(
      new Request(target, {
        method: req.method,
        headers,
        body: req.body,
        redirect: "manual",
        signal: req.signal,
      }),
    );
  } catch (err) {
    // The origin went away while the cache still called it warm: forget that, and send the client back
    // soon; the next request activates again.
    gate.hook.cache.invalidate(allow.key);
    return unreachable(gate.origin, err);
  } finally {
    // Counted to the response's start: the decider needs the load's shape, not each stream's tail.
    const now = Date.now();
    gate.load.requestOut(rev, now);
    const due = gate.load.take(now);
    if (due.length > 0) waitUntil(reportLoad(gate, due));
  }
}

/** Sends the isolate's load to the activator Worker for its edge decider; a 404 means it wants none. */
async function reportLoad(gate: Gate, loads: LoadReport[]): Promise<void> {
  const { env, load } = gate;
  const headers = new Headers({ "content-type": "application/json" });
  if (env.ACTIVATOR_TOKEN) headers.set("authorization", `Bearer ${env.ACTIVATOR_TOKEN}`);
  try {
    const r = await env.ACTIVATOR.fetch("http://activator.internal/v1/load", {
      method: "POST",
      headers,
      body: JSON.stringify({ loads }),
    });
    await r.body?.cancel();
    if (r.status === 404) load.stop();
  } catch {
    // The next period reports again; the decider reads a missing report as less load, never as an error.
  }
}

/** 503 + Retry-After: the origin could not be reached (ERR_UPSTREAM maps to 502 elsewhere; here it is transient). */
function unreachable(origin: URL, err: unknown): Response {
  return new Response(
    JSON.stringify({
      error: { code: ErrorCode.ERR_UPSTREAM, message: `origin ${origin.origin} unreachable: ${String(err)}` },
    }),
    {
      status: 503,
      headers: { "content-type": "application/json", "retry-after": String(UNREACHABLE_RETRY_AFTER_S) },
    },
  );
}

/**
 * Warm requests that need nothing but passing on (`passWarm`) go to the origin without Hono's routing and
 * middleware; everything else (cold, denied, held for a slot, a waiting-page poll, traced, the status route)
 * through the app, which takes up the decision already made.
 */
export default {
  async fetch(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const gate = gateFor(env);
    if (gate instanceof Error) return app.fetch(req, env, ctx);
    const path = getPath(req);
    const warm = path === EDGE_STATUS_PATH ? undefined : passWarm(gate.hook, req, path, {});
    if (!warm) return app.fetch(req, env, ctx);
    gate.received++;
    const send = () => forward(gate, req, warm.allow, (p) => ctx.waitUntil(p));
    return warm.release ? holdingSlot(warm.release, send) : send();
  },
} satisfies ExportedHandler<Env>;
