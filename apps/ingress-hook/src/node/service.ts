import type { Server } from "node:http";
import { createServer as createHttpServer, type RequestListener, type ServerOptions } from "node:http";
import type { AddressInfo } from "node:net";
import { createAdaptorServer } from "@hono/node-server";
import { type Clock, systemClock } from "@thaw/clock";
import { bearerToken, headTimeouts, PROMETHEUS_CONTENT_TYPE, tokenAllows } from "@thaw/protocol";
import { refuseCredentialTargets } from "@thaw/protocol/node";
import { Hono } from "hono";
import { type FetchLike, httpActivatorClient } from "../decision/activator-client.js";
import { activatorStatsSink } from "../decision/held-stats-sink.js";
import { IngressHook, type IngressHookOptions } from "../decision/hook.js";
import {
  envoyDecoratorResolver,
  hostTableResolver,
  routeHeadersResolver,
  type ServiceRoute,
} from "../decision/resolvers.js";
import { type WatchHandle, watchEndpoints } from "../decision/watch.js";
import { forwardAuthApp } from "../forward-auth.js";
import { type HookMetrics, hookMetrics } from "../metrics.js";
import { nodeConnectionEnded } from "./connection-ended.js";

/** Options of {@link startIngressHook}. */
export interface HookServiceOptions
  extends Pick<
    IngressHookOptions,
    | "warmTtlMs"
    | "activationTimeoutMs"
    | "routeToken"
    | "internalHeaders"
    | "picker"
    | "tracer"
    | "waitingPageFor"
    | "warm"
  > {
  /**
   * The activator's `host:port` on the request path (see IngressHookOptions.activatorUpstream); default
   * the host and port of `activatorUrl`. `null`: the proxy cannot reach the activator, so held requests are
   * released straight to a pod.
   */
  activatorUpstream?: string | null;
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
  /** This replica's name in the stats of the requests it holds (default `thaw-ingress-hook`). */
  podName?: string;
  /** Told about watch connects and losses. */
  onWatchState?: (state: "connected" | "lost", detail?: string) => void;
  /**
   * Pending connections the listener queues (default 4096). A cold burst holds one connection per
   * request in the auth check, all opened at once; Node's default (511) drops the rest, and their
   * SYN retries add seconds.
   */
  backlog?: number;
  /**
   * Longest time a proxy or client may take to send a request head (slowloris: 408 and close), to send a
   * new connection's first byte (default 60 s); idle keep-alive connections close after 65 s, or this if less.
   */
  headersTimeoutMs?: number;
}

/** A running forward-auth service. */
export interface HookService {
  readonly port: number;
  readonly hook: IngressHook;
  readonly app: Hono;
  /** Served at `GET /metrics` behind the token (docs/metrics.md). */
  readonly metrics: HookMetrics;
  /** Requests received and not answered yet (held cold ones included). */
  readonly inflight: number;
  /**
   * Orderly stop: `/healthz` fails and no new connection is accepted; requests already received finish
   * (a held one when its revision is ready, or with 503 + Retry-After at its deadline); idle keep-alive
   * connections are closed; then the watch stops. Bounded by the activation deadline plus 2 s.
   */
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
    activatorUpstream,
    token: _k,
    services,
    watch: _w,
    fetch: _f,
    onWatchState: _s,
    backlog: _b,
    podName,
    ...rest
  } = opts;
  const cc = new Map(services.map((s) => [`${s.namespace}/${s.name}`, s.containerConcurrency ?? 0]));
  const viaActivator = activatorUpstream === undefined ? hostPortOf(opts.activatorUrl) : activatorUpstream;
  return new IngressHook({
    random: Math.random,
    containerConcurrencyFor: (key) => cc.get(key) ?? 0,
    ...rest,
    ...(viaActivator ? { activatorUpstream: viaActivator } : {}),
    clock,
    activator,
    // The requests this hook holds are load: reported through the activator, which passes them on to the
    // autoscaler with its own, and stops counting each one when the hook hands it on (docs/demand.md).
    heldStats: activatorStatsSink({
      baseUrl: opts.activatorUrl,
      fetch: fetchFn,
      podName: podName ?? "thaw-ingress-hook",
      ...(opts.activatorToken ? { token: opts.activatorToken } : {}),
    }),
    resolvers: [routeHeadersResolver(), envoyDecoratorResolver(), hostTableResolver(services)],
  });
}

/** `host:port` of an http(s) URL, with the scheme's default port when it names none. */
export function hostPortOf(url: string): string {
  const u = new URL(url);
  return u.port ? u.host : `${u.host}:${u.protocol === "https:" ? 443 : 80}`;
}

/**
 * The Hono app of the service: forward-auth at `/` and at `/_thaw/auth`, and `/healthz` (503 once
 * `draining()` says so, so a load balancer stops sending). With a token, every forward-auth call must carry
 * it (decisions wake services and name pod addresses): `Authorization: Bearer` set by the proxy in its auth
 * request, or `?token=` in the auth URL for proxies that can set no header. `GET /metrics` serves the
 * hook's Prometheus text behind the same token.
 */
export function hookServiceApp(
  hook: IngressHook,
  token?: string,
  draining: () => boolean = () => false,
  metrics: HookMetrics = hookMetrics(hook),
): Hono {
  const app = new Hono();
  const fa = forwardAuthApp(hook, { connectionEnded: nodeConnectionEnded });
  app.get("/healthz", (c) => (draining() ? c.text("draining", 503) : c.text("ok")));
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
  app.get("/metrics", (c) =>
    c.body(metrics.registry.render(), 200, { "content-type": PROMETHEUS_CONTENT_TYPE }),
  );
  app.route("/_thaw/auth", fa);
  app.route("/", fa);
  return app;
}

/** Starts the forward-auth service on Node, with the watch subscription feeding its warm cache. */
export async function startIngressHook(opts: HookServiceOptions): Promise<HookService> {
  const hook = createHook(opts);
  let draining = false;
  const metrics = hookMetrics(hook);
  const app = hookServiceApp(hook, opts.token, () => draining, metrics);
  let watch: WatchHandle | undefined;
  if (opts.watch !== false) {
    watch = watchEndpoints({
      baseUrl: opts.activatorUrl,
      fetch: opts.fetch ?? ((r) => fetch(r)),
      clock: hook.clock,
      cache: hook.cache,
      ...(opts.activatorToken ? { token: opts.activatorToken } : {}),
      onState: (state, detail) => {
        metrics.watchState(state);
        opts.onWatchState?.(state, detail);
      },
    });
  }
  // Idle keep-alives last 65 s, as the activator's: above nginx's 60 s upstream keepalive_timeout, so the
  // proxy in front closes an idle connection before the hook does (never sending on one the hook just
  // closed) and a cold request after a quiet spell is not the one that opens a new connection to the hook.
  const limits = headTimeouts(opts.headersTimeoutMs);
  const server = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: { connectionsCheckingInterval: limits.connectionsCheckingInterval },
    createServer: ((o: ServerOptions, l: RequestListener) =>
      createHttpServer(o, refuseCredentialTargets(l))) as unknown as typeof createHttpServer,
  }) as Server;
  server.headersTimeout = limits.headersTimeout;
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.requestTimeout = limits.requestTimeout;
  let inflight = 0;
  server.on("request", (_req, res) => {
    inflight++;
    res.once("close", () => inflight--);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: opts.port, host: opts.host ?? "127.0.0.1", backlog: opts.backlog ?? 4096 }, () =>
      resolve(),
    );
  });
  const port = (server.address() as AddressInfo).port;
  // Longest a held request can take: the activation deadline plus the client's grace for a silent activator.
  const capMs = (opts.activationTimeoutMs ?? 60_000) + 2000;
  let closing: Promise<void> | undefined;
  const close = async () => {
    draining = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive connections would hold close() open: idle ones go now, busy ones after their answer.
    server.closeIdleConnections();
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    const capped = new AbortController();
    const timeout = hook.clock.sleep(capMs, capped.signal).catch(() => {});
    await Promise.race([closed, timeout]);
    capped.abort();
    clearInterval(idle);
    server.closeAllConnections();
    watch?.stop();
    hook.close();
  };
  return {
    port,
    hook,
    app,
    metrics,
    get inflight() {
      return inflight;
    },
    close: () => {
      closing ??= close();
      return closing;
    },
  };
}
