/**
 * Workers entry: the hook in front of an origin at the edge. Warm requests go straight to the origin;
 * cold ones wait on the activator, reached through a service binding (the activator's own worker once it
 * exists; until then any fetcher that implements POST /v1/activate of CONTRACTS.md).
 */
import { systemClock } from "@thaw/clock";
import { Hono, type MiddlewareHandler } from "hono";
import { parseServiceRoutes } from "./config.js";
import { httpActivatorClient } from "./decision/activator-client.js";
import { IngressHook } from "./decision/hook.js";
import { envoyDecoratorResolver, hostTableResolver, routeHeadersResolver } from "./decision/resolvers.js";
import { type ThawIngressVariables, thawIngress } from "./middleware.js";

/** Bindings and vars of wrangler.jsonc. */
export interface Env {
  /** Service binding implementing POST /v1/activate. */
  ACTIVATOR: Fetcher;
  /** Service binding of the origin; or set ORIGIN_URL. */
  ORIGIN?: Fetcher;
  ORIGIN_URL?: string;
  /** JSON list of `{ name, namespace, hosts, paths }`, the routing subset of thaw.config.yaml. */
  THAW_SERVICES: string;
  ACTIVATOR_TOKEN?: string;
  ROUTE_TOKEN?: string;
  ACTIVATION_TIMEOUT_MS?: string;
  WARM_TTL_MS?: string;
}

type WorkerHonoEnv = { Bindings: Env; Variables: ThawIngressVariables };
type Gate = { hook: IngressHook; mw: MiddlewareHandler<WorkerHonoEnv> };
// One hook per isolate and env, built on first use (not at import), so its warm cache outlives requests.
const gates = new WeakMap<Env, Gate>();

/** The hook and middleware for this env, validated once. */
export function gateFor(env: Env): Gate {
  const known = gates.get(env);
  if (known) return known;
  const parsed = parseServiceRoutes({ services: JSON.parse(env.THAW_SERVICES) as unknown });
  if (!parsed.ok) {
    throw new Error(`THAW_SERVICES: ${parsed.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  }
  const hook = new IngressHook({
    clock: systemClock,
    random: Math.random,
    resolvers: [routeHeadersResolver(), envoyDecoratorResolver(), hostTableResolver(parsed.value)],
    activator: httpActivatorClient({
      baseUrl: "http://activator.internal",
      fetch: (r) => env.ACTIVATOR.fetch(r),
      clock: systemClock,
      ...(env.ACTIVATOR_TOKEN ? { token: env.ACTIVATOR_TOKEN } : {}),
    }),
    ...(env.ROUTE_TOKEN ? { routeToken: env.ROUTE_TOKEN } : {}),
    ...(env.ACTIVATION_TIMEOUT_MS ? { activationTimeoutMs: Number(env.ACTIVATION_TIMEOUT_MS) } : {}),
    ...(env.WARM_TTL_MS ? { warmTtlMs: Number(env.WARM_TTL_MS) } : {}),
  });
  const gate = { hook, mw: thawIngress<WorkerHonoEnv>({ hook }) };
  gates.set(env, gate);
  return gate;
}

const app = new Hono<WorkerHonoEnv>();
app.use("*", (c, next) => gateFor(c.env).mw(c, next));
app.all("*", (c) => {
  const req = c.req.raw;
  if (c.env.ORIGIN) return c.env.ORIGIN.fetch(req);
  if (!c.env.ORIGIN_URL)
    return c.json({ error: { code: "ERR_UPSTREAM", message: "no ORIGIN configured" } }, 502);
  const u = new URL(req.url);
  return fetch(new Request(new URL(u.pathname + u.search, c.env.ORIGIN_URL), req));
});

export default app;
