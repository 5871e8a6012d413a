import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { BodyBudget, ConcurrencyReporter } from "@thaw/activation";
import { type Clock, systemClock } from "@thaw/clock";
import {
  bearerToken,
  encodeWireStatMessages,
  type FirstByteNote,
  headTimeouts,
  PROMETHEUS_CONTENT_TYPE,
  type ProblemNote,
  type Tracer,
  tokenAllows,
  type WireStatMessage,
} from "@thaw/protocol";
import { lingerOnClose, refuseCredentialTargets } from "@thaw/protocol/node";
import { createActivatorApp, HANDED_OFF } from "../app.js";
import { LocalCoordinator } from "../local-coordinator.js";
import { applyPodProblem } from "../pod-problem.js";
import type {
  ActivatorDeps,
  Coordinator,
  EndpointSource,
  Forwarder,
  Logger,
  RevisionDirectory,
  ScalerPoke,
  StatSink,
} from "../ports.js";
import { httpStatTransport, StatPump } from "../stat-pump.js";
import { StaticDirectory, StaticEndpointSource } from "../static-sources.js";
import { Telemetry } from "../telemetry.js";
import type { ActivatorConfig } from "./config.js";
import { closeDepartedPods } from "./departed-pods.js";
import { createFastPath } from "./fast-path.js";
import { createH1Forwarder } from "./h1-forwarder.js";
import { h2RequestHeaders, handleH2Stream, PodSessions } from "./h2-proxy.js";
import { acceptH2c } from "./h2c-accept.js";
import { autoscalerHints } from "./hint-relay.js";
import { createMetrics } from "./metrics.js";
import { createProbeFetch } from "./probe-fetch.js";
import { handleUpgrade } from "./upgrade.js";
import { wsStatTransport } from "./ws-stat-transport.js";

/** Parts a caller may replace (tests, the CLI's local processes). */
export interface ActivatorOverrides {
  clock?: Clock;
  endpoints?: EndpointSource;
  revisions?: RevisionDirectory;
  coordinator?: Coordinator;
  forward?: Forwarder;
  scaler?: ScalerPoke;
  logger?: Logger;
  /** Where stats go instead of the one `autoscalerUrl` (several autoscaler replicas). */
  stats?: StatSink & {
    health(): { ok: true } | { ok: false; reason: string };
    close(): void;
    /** The replicas' stat URLs now: wake hints go to each one too. */
    targets?(): readonly string[];
  };
  /** The activator replicas, for splitting capacity among them (only with the built-in coordinator). */
  peers?: PeerSource;
  /** Spans (see docs/tracing.md); absent = tracing off. With a tracer every request takes the portable path. */
  tracer?: Tracer;
  /**
   * What the autoscaler replicas say is wrong with revisions' pods (their notes on the stat links): a
   * failing revision's held requests are answered now with the cause. `autoscalerUrl` over ws needs none.
   */
  problems?: ProblemNotes;
  /** Stopped with the activator (informers behind the sources above). */
  onClose?: () => void;
  /**
   * Takes wake hints (`/v1/activate` ttlSeconds); default: passed on to the autoscaler(s) the stats go to,
   * refused when there is none.
   */
  warm?: ActivatorDeps["warm"];
}

/** Notes of pod problems as they come; `subscribe` returns the unsubscribe. */
export interface ProblemNotes {
  subscribe(listener: (note: ProblemNote) => void): () => void;
}

/** The activator replicas as a list of IPs, and this replica's own. */
export interface PeerSource {
  self: string;
  subscribe(onChange: (ips: string[]) => void): () => void;
}

/** A running Node activator. */
export interface RunningActivator {
  server: Server;
  port: number;
  telemetry: Telemetry;
  /** Kubelet probe fails from now; after `drainDelayMs` the listener closes and in-flight requests finish. */
  drain(): Promise<void>;
  /** Immediate stop (tests). */
  close(): Promise<void>;
}

/** Starts the activator on `config.host:config.port` (0 = any free port). */
export async function startActivator(
  config: ActivatorConfig,
  o: ActivatorOverrides = {},
): Promise<RunningActivator> {
  const clock = o.clock ?? systemClock;
  const telemetry = new Telemetry();
  const endpoints =
    o.endpoints ??
    new StaticEndpointSource(
      config.revisions.map((r) => [r, r.endpoints, r.clusterIP ? { clusterIP: r.clusterIP } : undefined]),
    );
  const revisions =
    o.revisions ??
    new StaticDirectory(
      config.revisions.map(({ endpoints: _e, clusterIP: _c, namespace, name, ...cfg }) => ({
        key: { namespace, name },
        config: cfg,
      })),
    );
  const pool = o.forward ? undefined : createH1Forwarder();
  const forward = o.forward ?? (pool as NonNullable<typeof pool>).forward;
  // Probes share the pods' keep-alive pools (pools of their own when the caller brought a forwarder).
  const probes = pool ?? createH1Forwarder();
  const probeFetch = createProbeFetch(probes.client);
  // Without a scaler to poke (in a cluster), a revision found cold is reported to the autoscaler as one
  // request, the cold-start poke the reporter sends for a first proxied request: the hook's activation call
  // waits in /v1/activate and stands for one of the requests the hook holds (and leaves out of its count).
  const scaler: ScalerPoke = o.scaler ?? { poke: (key) => reporter.poke(key) };
  const local = o.coordinator
    ? undefined
    : new LocalCoordinator({
        endpoints,
        clock,
        fetch: probeFetch,
        scaler,
        telemetry,
        logger: o.logger,
        passthroughLb: config.passthroughLb,
      });
  const coordinator = o.coordinator ?? (local as LocalCoordinator);
  const stopPools = pool ? closeDepartedPods(coordinator, pool.client) : undefined;
  const onNote = (note: ProblemNote) =>
    applyPodProblem({ revisions, coordinator }, { namespace: note.namespace, name: note.name }, note);
  const stopNotes = o.problems?.subscribe(onNote);
  const stopPeers =
    local && o.peers ? o.peers.subscribe((ips) => local.setActivators(ips, o.peers?.self ?? "")) : undefined;
  const pump =
    o.stats ??
    (config.autoscalerUrl
      ? new StatPump({
          clock,
          encode: encodeWireStatMessages,
          logger: o.logger,
          transport: config.autoscalerUrl.startsWith("ws")
            ? wsStatTransport(config.autoscalerUrl, config.token, undefined, onNote)
            : httpStatTransport(config.autoscalerUrl, globalThis.fetch, config.token),
        })
      : undefined);
  // Each cold start's first byte, to the autoscaler that keeps the cold start's record (a text frame on
  // the stat link, docs/dashboard.md); a link without text frames (HTTP) drops it.
  telemetry.onFirstByte((s) =>
    pump?.note?.(JSON.stringify({ type: "firstByte", ...s } satisfies FirstByteNote)),
  );
  const reporter = new ConcurrencyReporter({ podName: config.podName, clock, send: (m) => pump?.send(m) });
  reporter.start();
  const autoscalers =
    o.stats?.targets ?? (config.autoscalerUrl ? () => [config.autoscalerUrl as string] : undefined);
  const warm =
    o.warm ??
    (autoscalers ? autoscalerHints(autoscalers, config.token, (r) => globalThis.fetch(r)) : undefined);
  let draining = false;
  const { app } = createActivatorApp(
    {
      revisions,
      coordinator,
      forward,
      clock,
      reporter,
      bodyBudget: new BodyBudget(config.bodyBudget),
      token: config.token,
      localOnlyWithoutToken: true,
      logger: o.logger,
      podName: config.podName,
      passthroughLb: config.passthroughLb,
      ...(o.tracer ? { tracer: o.tracer } : {}),
      ...(warm ? { warm } : {}),
      // A hook's held requests reach the autoscaler on this activator's stat link (docs/demand.md); without
      // one they are refused (404), and the hook stops sending.
      ...(pump ? { relayStats: (m: WireStatMessage[]) => pump.send(m) } : {}),
      health: () =>
        draining ? { ok: false, reason: "received SIGTERM from kubelet" } : (pump?.health() ?? { ok: true }),
    },
    telemetry,
  );
  const registry = createMetrics({
    telemetry,
    coordinator,
    ...(pump instanceof StatPump ? { statLink: pump } : {}),
  });
  const listener = getRequestListener(app.fetch);
  // The fast path's hand-overs: requests it already counted, answered by the portable path.
  const handOver = getRequestListener((r, env) => app.fetch(r, { ...env, [HANDED_OFF]: true }));
  const slow = (req: IncomingMessage, res: ServerResponse) => void listener(req, res);
  // Decided once here: with tracing on, warm requests take the portable path, which makes their spans,
  // so the fast path stays exactly as it is when tracing is off.
  const fast =
    pool && !o.tracer
      ? createFastPath(
          { revisions, coordinator, forward, clock, reporter, passthroughLb: config.passthroughLb },
          pool.client,
          (req, res) => void handOver(req, res),
          telemetry,
        )
      : () => false;
  const limits = headTimeouts(config.headersTimeoutMs);
  const server = createServer(
    { connectionsCheckingInterval: limits.connectionsCheckingInterval },
    refuseCredentialTargets((req, res) => {
      if (
        req.url === config.metricsPath &&
        req.method === "GET" &&
        !req.headers["knative-serving-revision"]
      ) {
        // Internal like /v1: behind the token when one is set (Prometheus sends it with `authorization`).
        if (
          !tokenAllows(
            config.token,
            bearerToken(new Headers({ authorization: req.headers.authorization ?? "" })),
          )
        ) {
          res.writeHead(401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": "Bearer" });
          res.end("a valid Authorization: Bearer <token> header is required\n");
          return;
        }
        res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE });
        res.end(registry.render());
        return;
      }
      if (!draining && fast(req, res)) return;
      slow(req, res);
    }),
  );
  lingerOnClose(server);
  // Slow heads and idle keep-alive connections are cut (60 s by default, Knative's header timeout).
  server.headersTimeout = limits.headersTimeout;
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.requestTimeout = limits.requestTimeout;
  // What a websocket upgrade and an h2c stream need to wait for a pod and reach it.
  const streamDeps = {
    revisions,
    coordinator,
    forward,
    clock,
    reporter,
    logger: o.logger,
    passthroughLb: config.passthroughLb,
  };
  const upgraded = new Set<import("node:stream").Duplex>();
  server.on("upgrade", (req, socket, head) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    void handleUpgrade(req, socket, head, streamDeps, { tunnelIdleMs: config.tunnelIdleMs });
  });
  // h2c (prior knowledge) on the same port: HTTP/2 and gRPC streams, spliced to the pods' HTTP/2 sessions.
  const pods = new PodSessions();
  const h2c = acceptH2c(server, (stream, h) => {
    const headers = h2RequestHeaders(h);
    void handleH2Stream(
      stream,
      headers,
      String(h[":path"] ?? "/"),
      String(h[":method"] ?? "GET"),
      streamDeps,
      pods,
    );
  });
  // A cold burst opens its connections all at once; Node's default backlog (511) would drop the rest.
  await new Promise<void>((resolve) =>
    server.listen({ port: config.port, host: config.host, backlog: 4096 }, resolve),
  );
  const port = (server.address() as AddressInfo).port;
  let shut: Promise<void> | undefined;
  const shutdown = () => (shut ??= stopParts());
  const stopParts = async () => {
    reporter.stop();
    stopPeers?.();
    stopNotes?.();
    stopPools?.();
    o.onClose?.();
    coordinator.close();
    pump?.close();
    await probes.close();
    pods.close();
  };
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
      h2c.closeSessions();
    });
  return {
    server,
    port,
    telemetry,
    async drain() {
      draining = true;
      o.logger?.info("draining", { delayMs: config.drainDelayMs });
      await clock.sleep(config.drainDelayMs);
      // Keep-alive sockets would hold close() open: idle ones close now, busy ones after their response.
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      // Streams (SSE, long polls) and spliced websockets could hold the process forever: cap the wait.
      const capped = new AbortController();
      const timeout = clock.sleep(config.drainTimeoutMs, capped.signal).then(
        () => "timeout" as const,
        () => "done" as const,
      );
      const outcome = await Promise.race([closeServer().then(() => "done" as const), timeout]);
      capped.abort();
      clearInterval(idle);
      if (outcome === "timeout") {
        o.logger?.warn("drain timeout: closing the remaining connections", {
          afterMs: config.drainTimeoutMs,
        });
        server.closeAllConnections();
        h2c.destroySessions();
        for (const s of upgraded) s.destroy();
      }
      await shutdown();
    },
    async close() {
      server.closeAllConnections();
      h2c.destroySessions();
      await closeServer();
      await shutdown();
    },
  };
}
