// Only for `bench/edge.mjs`'s breakdown: where a warm request's time goes in workerd, one piece of the
// gateway's path at a time, all in one Worker so every variant runs in the same isolate and dev server.
// The first path segment picks the variant; each after /bare/ adds one piece to the one before it:
//   /bare-hono/  the bare Hono proxy Worker itself (bench/bare-proxy): the verdict's baseline
//   /bare/     the bare proxy's forward without Hono
//   /decide/   + the hook's decision (gateFor, the request's view, tryDecide; activates when cold)
//   /hono/     the bare forward behind a Hono app running the thawIngress middleware (as the gateway does)
//   /gateway/  the gateway Worker itself (the same middleware, then its own forward: Connection-named
//              fields dropped, route token, load counted)
import { Hono } from "hono";
import { middlewareView, type ThawIngressVariables } from "../../src/middleware.js";
import gateway, { type Env, gateFor } from "../../src/worker.js";
import bareHono from "../bare-proxy/worker.js";

/** The bare proxy's forward (bench/bare-proxy/worker.ts), with the variant's segment kept in the path. */
function bareForward(req: Request, origin: string): Promise<Response> {
  const u = new URL(req.url);
  const headers = new Headers(req.headers);
  headers.set("x-forwarded-host", req.headers.get("host") ?? u.host);
  headers.set("x-forwarded-proto", u.protocol.replace(":", ""));
  return fetch(
    new Request(new URL(u.pathname + u.search, origin), {
      method: req.method,
      headers,
      body: req.body,
      redirect: "manual",
      signal: req.signal,
    }),
  );
}

async function decided(req: Request, env: Env): Promise<Response | undefined> {
  const gate = gateFor(env);
  if (gate instanceof Error) return new Response(gate.message, { status: 500 });
  const view = middlewareView(req, new URL(req.url).pathname, false);
  const d = await gate.hook.decide(view);
  return d.kind === "allow" ? undefined : new Response(d.message, { status: d.status });
}

const hono = new Hono<{ Bindings: Env; Variables: ThawIngressVariables }>();
hono.use("*", (c, next) => {
  const gate = gateFor(c.env);
  if (gate instanceof Error) return Promise.resolve(c.text(gate.message, 500));
  return gate.mw(c, next);
});
hono.all("*", (c) => bareForward(c.req.raw, c.env.ORIGIN_URL));

export default {
  async fetch(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const path = new URL(req.url).pathname;
    if (path.startsWith("/bare-hono/")) return bareHono.fetch(req, env, ctx);
    if (path.startsWith("/bare/")) return bareForward(req, env.ORIGIN_URL);
    if (path.startsWith("/decide/")) return (await decided(req, env)) ?? bareForward(req, env.ORIGIN_URL);
    if (path.startsWith("/hono/")) return hono.fetch(req, env, ctx);
    return gateway.fetch(req, env, ctx);
  },
};
