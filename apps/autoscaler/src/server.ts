import { createServer, type RequestListener, type ServerOptions } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Clock } from "@thaw/clock";
import { localOnlyRefusal, PROMETHEUS_CONTENT_TYPE } from "@thaw/protocol";
import { lingerOnClose, refuseCredentialTargets } from "@thaw/protocol/node";
import type { Hono } from "hono";
import { bearerOk } from "./auth.js";
import type { DashboardFeed } from "./dashboard/feed.js";
import { recordColdStartPhases } from "./dashboard/metrics.js";
import { dashboardRoutes } from "./dashboard/routes.js";
import { hintReceiver } from "./hint-receiver.js";
import type { Logger } from "./logger.js";
import { type AutoscalerMetrics, autoscalerMetrics, statSocketMetrics } from "./metrics.js";
import { scaleReceiver } from "./scale-receiver.js";
import type { AutoscalerService } from "./service.js";
import { sseResponse } from "./sse.js";
import { attachStatSocket, type ProblemFeed, type StatSocket, statRoutes } from "./stat-server.js";

/** Options of {@link startAutoscalerServer}. */
export interface AutoscalerServerOptions {
  service: AutoscalerService;
  clock: Clock;
  host?: string;
  /** 0 = any free port. */
  port?: number;
  token?: string;
  /** Shared secret of the scale webhook; set, `POST /v1/scale` accepts signed requests (CONTRACTS.md). */
  scaleWebhookSecret?: string;
  logger?: Logger;
  /** Set, the `/_thaw/` dashboard and its SSE stream are served from this feed (token as for the API). */
  dashboard?: DashboardFeed;
  /** Served at `GET /metrics` (behind the token); default {@link autoscalerMetrics} of `service`. */
  metrics?: AutoscalerMetrics;
}

/** A listening autoscaler: stats in (websocket and POST), events and status out. */
export interface AutoscalerServer {
  /** `http://host:port` */
  url: string;
  port: number;
  app: Hono;
  socket: StatSocket;
  /** The registry behind `GET /metrics` (fill `coldStartPhase` from where phases are measured). */
  metrics: AutoscalerMetrics;
  close(): Promise<void>;
}

/**
 * The autoscaler's HTTP face: stat intake (`ws://` any path, `POST /v1/stats`), wake hints (`POST /v1/activate`
 * with ttlSeconds, hint-receiver.ts), `GET /v1/scale-events` (SSE)
 * and `GET /v1/revisions` (JSON status), `GET /metrics` (Prometheus text, docs/metrics.md), `POST /v1/scale`
 * (the signed scale webhook; its signature is its authentication, so it takes no bearer token), kubelet
 * probes answered 200, and with `dashboard` the `/_thaw/` page with `/_thaw/api/stream` (the same routes
 * as thaw up's gateway), its cold starts recorded in `thaw_cold_start_phase_seconds`.
 */
export function autoscalerApp(opts: Omit<AutoscalerServerOptions, "host" | "port">): Hono {
  const app = statRoutes({
    onStats: (stats) => opts.service.record(stats),
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  if (!opts.token) {
    // No token (laptop mode): the status and stat endpoints answer only loopback Hosts and same-origin
    // callers (probes, /healthz and /metrics stay open; the webhook is signed).
    app.use("*", async (c, next) => {
      const p = c.req.path;
      const internal =
        p === "/v1/stats" ||
        p === "/v1/activate" ||
        p === "/v1/revisions" ||
        p === "/v1/scale-events" ||
        p.startsWith("/_thaw/");
      return (internal && localOnlyRefusal(c.req.raw)) || next();
    });
  }
  app.use("/v1/scale-events", async (c, next) => {
    if (!bearerOk(c.req.header("authorization"), opts.token)) {
      return c.json({ error: { code: "ERR_UNAUTHORIZED", message: "missing or wrong bearer token" } }, 401);
    }
    await next();
  });
  for (const path of ["/v1/revisions", "/v1/activate", "/metrics"]) {
    app.use(path, async (c, next) => {
      if (!bearerOk(c.req.header("authorization"), opts.token)) {
        return c.json({ error: { code: "ERR_UNAUTHORIZED", message: "missing or wrong bearer token" } }, 401);
      }
      await next();
    });
  }
  app.get("/v1/scale-events", (c) => sseResponse(opts.service, opts.clock, c.req.raw.signal));
  app.get("/v1/revisions", (c) => c.json(opts.service.revisions()));
  const metrics = opts.metrics ?? autoscalerMetrics(opts.service);
  app.get("/metrics", (c) =>
    c.body(metrics.registry.render(), 200, { "content-type": PROMETHEUS_CONTENT_TYPE }),
  );
  // Wake hints an activator passes on (it cannot scale itself); activations that wait are the activator's.
  const hint = hintReceiver(opts.service);
  app.post("/v1/activate", (c) => hint(c.req.raw));
  const receive = scaleReceiver(opts.service, opts.scaleWebhookSecret, opts.clock);
  app.post("/v1/scale", (c) => receive(c.req.raw));
  if (opts.dashboard) {
    recordColdStartPhases(opts.dashboard, metrics.coldStartPhase);
    dashboardRoutes(app, {
      feed: opts.dashboard,
      clock: opts.clock,
      ...(opts.token ? { token: opts.token } : {}),
    });
  }
  return app;
}

/** Serves {@link autoscalerApp} and the websocket intake on one port. */
export async function startAutoscalerServer(opts: AutoscalerServerOptions): Promise<AutoscalerServer> {
  const metrics = opts.metrics ?? autoscalerMetrics(opts.service);
  const app = autoscalerApp({ ...opts, metrics });
  const host = opts.host ?? "127.0.0.1";
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve, reject) => {
      const s = serve(
        {
          fetch: app.fetch,
          hostname: host,
          port: opts.port ?? 0,
          createServer: ((o: ServerOptions, l: RequestListener) =>
            createServer(o, refuseCredentialTargets(l))) as unknown as typeof createServer,
        },
        (info: AddressInfo) => resolve({ server: s, port: info.port }),
      );
      s.once("error", reject);
    },
  );
  lingerOnClose(server as import("node:http").Server);
  const socket = attachStatSocket(server as import("node:http").Server, {
    onStats: (stats) => opts.service.record(stats),
    problems: problemFeed(opts.service),
    onFirstByte: (note) => opts.service.firstByte(note),
    ...(opts.token ? { token: opts.token } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  statSocketMetrics(metrics.registry, socket);
  return {
    url: `http://${host}:${port}`,
    port,
    app,
    socket,
    metrics,
    close: async () => {
      await socket.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as import("node:http").Server).closeAllConnections?.();
      });
    },
  };
}

/** The service's pod problems as the stat socket sends them to activators. */
function problemFeed(service: AutoscalerService): ProblemFeed {
  return {
    current: () => service.problems(),
    on: (listener) =>
      service.on((e) => {
        if (e.type !== "problem") return;
        const { namespace, name, severity, message } = e;
        listener({ type: "problem", namespace, name, severity, message });
      }),
  };
}
