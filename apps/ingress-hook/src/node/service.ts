import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { type Clock, systemClock } from "@thaw/clock";
import { bearerToken, tokenAllows } from "@thaw/protocol";
import { Hono } from "hono";
import { type FetchLike, httpActivatorClient } from "../decision/activator-client.js";
import { IngressHook, type IngressHookOptions } from "../decision/hook.js";
import {
  envoyDecoratorResolver,
  hostTableResolver,
  routeHeadersResolver,
  type ServiceRoute,
} from "../decision/resolvers.js";
import { type WatchHandle, watchEndpoints } from "../decision/watch.js";
import { forwardAuthApp } from "../forward-auth.js";

/** Options of {@link startIngressHook}. */
export interface HookServiceOptions
  extends Pick<
    IngressHookOptions,
    "warmTtlMs" | "activationTimeoutMs" | "routeToken" | "internalHeaders" | "activatorUpstream" | "picker"
  > {
  /** Random source of the LB policy; default Math.random. */
  random?: () => number;
  host?: string;
  /** 0 picks a free port. */
  port: number;
  activatorUrl: string;
  activatorToken?: string;
  /** Token the proxy must present on every forward-auth call (`Authorization: Bearer`, or `?token=`). */
  token?: string;
  services: ServiceRoute[];
  /** Subscribe to the activator's /v1/watch (default true). */
  watch?: boolean;
  clock?: Clock;
  fetch?: FetchLike;
  /** Told about watch connects and losses. */
  onWatchState?: (state: "connected" | "lost", detail?: string) => void;
}

/** A running forward-auth service. */
export interface HookService {
  readonly port: number;
  readonly hook: IngressHook;
  readonly app: Hono;
  close(): Promise<void>;
}

/** Builds the hook with the standard resolver chain (route headers, Envoy decorator, host table). */
export function createHook(opts: Omit<HookServiceOptions, "port" | "host">): IngressHook {
  const clock = opts.clock ?? systemClock;
  const fetchFn: FetchLike = opts.fetch ?? ((r) => fetch(r));
  const activator = httpActivatorClient({
    baseUrl: opts.activatorUrl,
    fetch: fetchFn,
    clock,
    ...(opts.activatorToken ? { token: opts.activatorToken } : {}),
  });
  const {
    activatorUrl: _u,
    activatorToken: _t,
    token: _k,
    services,
    watch: _w,
    fetch: _f,
    onWatchState: _s,
    ...rest
  } = opts;
  const cc = new Map(services.map((s) => [`${s.namespace}/${s.name}`, s.containerConcurrency ?? 0]));
  return new IngressHook({
    random: Math.random,
    containerConcurrencyFor: (key) => cc.get(key) ?? 0,
    ...rest,
    clock,
    activator,
    resolvers: [routeHeadersResolver(), envoyDecoratorResolver(), hostTableResolver(services)],
  });
}

/**
 * The Hono app of the service: forward-auth at `/` and at `/_thaw/auth`, and `/healthz`. With a token, every
 * forward-auth call must carry it (decisions wake services and name pod addresses): `Authorization: Bearer`
 * set by the proxy in its auth request, or `?token=` in the auth URL for proxies that can set no header.
 */
export function hookServiceApp(hook: IngressHook, token?: string): Hono {
  const app = new Hono();
  const fa = forwardAuthApp(hook);
  app.get("/healthz", (c) => c.text("ok"));
  app.use("*", async (c, next) => {
    const query = new URL(c.req.url).searchParams.get("token");
    if (!tokenAllows(token, bearerToken(c.req.raw.headers), query)) {
      return c.json(
        { error: { code: "ERR_UNAUTHORIZED", message: "the proxy must send Authorization: Bearer <token>" } },
        401,
        { "www-authenticate": 'Bearer realm="thaw-ingress-hook"' },
      );
    }
    await next();
  });
  app.onError((err, c) => {
    // A bug, not a decision: log it and answer like an unreachable hook would (nginx maps 500 to 503).
    console.error("thaw-ingress-hook: unexpected error", err);
    return c.json({ error: { code: "ERR_UPSTREAM", message: "ingress hook failed" } }, 500);
  });
  app.route("/_thaw/auth", fa);
  app.route("/", fa);
  return app;
}

/** Starts the forward-auth service on Node, with the watch subscription feeding its warm cache. */
export async function startIngressHook(opts: HookServiceOptions): Promise<HookService> {
  const hook = createHook(opts);
  const app = hookServiceApp(hook, opts.token);
  let watch: WatchHandle | undefined;
  if (opts.watch !== false) {
    watch = watchEndpoints({
      baseUrl: opts.activatorUrl,
      fetch: opts.fetch ?? ((r) => fetch(r)),
      clock: hook.clock,
      cache: hook.cache,
      ...(opts.activatorToken ? { token: opts.activatorToken } : {}),
      ...(opts.onWatchState ? { onState: opts.onWatchState } : {}),
    });
  }
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host ?? "127.0.0.1" }, () =>
      resolve(s),
    );
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    hook,
    app,
    close: () =>
      new Promise<void>((resolve) => {
        watch?.stop();
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
