import http from "node:http";
import { Breaker, RequestStats, StatReporter } from "@thaw/activation";
import type { Clock, TimerHandle } from "@thaw/clock";
import {
  Drainer,
  encodeStat,
  Path,
  PROMETHEUS_CONTENT_TYPE,
  PROTOBUF_CONTENT_TYPE,
  QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES,
  type QueueProber,
  queueHealthResponse,
  type Tracer,
} from "@thaw/protocol";
import { othersListening } from "@thaw/readiness/node";
import type { Logger } from "pino";
import type { QueueProxyConfig } from "./config.js";
import type { ExchangeContext } from "./exchange.js";
import { H1Upstream, poolSizeFor } from "./h1-upstream.js";
import { H2Upstream } from "./h2-upstream.js";
import { closeServer, listen } from "./listen.js";
import { createObserver, withTracing } from "./observer.js";
import { RequestMetrics } from "./request-metrics.js";
import { servingHandler } from "./serving.js";
import { createServingPort } from "./serving-port.js";
import { TimeoutSweeper } from "./timeouts.js";
import { certFilesIn, certFilesPresent, createTlsPort } from "./tls-port.js";
import { HijackedConnections, upgradeHandler } from "./upgrade.js";

/** Knative's stat reporting period (c.5). */
export const REPORTING_PERIOD_MS = 1000;

/** What a running queue-proxy exposes to its entry point and to tests. */
export interface RunningQueueProxy {
  /** Bound ports (differ from the config when it asked for 0). */
  ports: { serving: number; servingTls: number; admin: number; metrics: number; userMetrics: number };
  drainer: Drainer;
  /** SIGTERM: drain, stop serving, wait for in-flight and (bounded) upgraded connections, close all. */
  shutdown(): Promise<void>;
  /** Stops everything at once, without a drain (tests, embedding). */
  close(): Promise<void>;
}

/** Capabilities the queue-proxy runs with; the bin passes the real ones. */
export interface QueueProxyDeps {
  clock: Clock;
  /** The readiness check of the user container; null answers 500 `no probe`. */
  prober: QueueProber | null;
  /** JSON request log; null = off. */
  requestLog: Logger | null;
  /** Certificate reload period of the TLS port; default 60 s like Knative (tests shorten it). */
  certReloadPeriodMs?: number;
  /** Operational lines (a failed certificate reload); default stderr. */
  log?: (line: string) => void;
  /** Spans per proxied request (docs/tracing.md); absent = tracing off. */
  tracer?: Tracer;
}

function admin(drainer: Drainer, clock: Clock, sigterm: () => boolean): http.RequestListener {
  return (req, res) => {
    if ((req.url ?? "").split("?")[0] !== "/wait-for-drain") {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("404 page not found\n");
      return;
    }
    const drained = drainer.drain();
    // No SIGTERM within 1 s means the kubelet is restarting the user container (liveness), not deleting
    // the pod: serve probes again (a.4).
    clock.setTimeout(() => {
      if (!sigterm()) drainer.reset();
    }, 1000);
    void drained.then(() => {
      if (!res.destroyed) res.writeHead(200).end();
    });
  };
}

/** The answer on `Path.listening`: the app's port and what listens in the pod beside the queue-proxy. */
async function listeningReport(userPort: number): Promise<string> {
  const listening = await othersListening().catch(() => undefined);
  return JSON.stringify({ userPort, listening: listening ?? null });
}

/** How long SIGTERM waits for HTTP/1 connections to send their last bytes before cutting them. */
const CLOSE_WAIT_MS = 2000;

/** Starts every server of the queue-proxy (serving, admin, autoscaler stat, Prometheus). */
export async function startQueueProxy(
  config: QueueProxyConfig,
  deps: QueueProxyDeps,
): Promise<RunningQueueProxy> {
  const { clock } = deps;
  const startedAt = clock.now();
  const cc = config.containerConcurrency;
  const breaker =
    cc > 0 ? new Breaker({ queueDepth: 10 * cc, maxConcurrency: cc, initialCapacity: cc }) : null;
  const stats = new RequestStats(startedAt);
  const reporter = new StatReporter(config.pod, REPORTING_PERIOD_MS, startedAt);
  const metrics = config.requestMetrics
    ? new RequestMetrics(
        {
          k8s_namespace_name: config.namespace,
          kn_configuration_name: config.configuration,
          kn_revision_name: config.revision,
          k8s_pod_name: config.pod,
        },
        breaker ? () => breaker.inFlight : null,
      )
    : null;
  const drainer = new Drainer({
    clock,
    quietPeriodMs: config.drainQuietPeriodMs,
    healthCheckUserAgentPrefixes: QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES,
    healthCheck: (req) => queueHealthResponse(req, deps.prober),
  });
  const upstream = new H1Upstream({ port: config.userPort, maxConnections: poolSizeFor(cc) });
  // HTTP/2 to the app only when its port is named h2c (Knative's rule); HTTP/1.1 otherwise, whatever the client spoke.
  const h2 = config.userPortName === "h2c" ? new H2Upstream(config.userPort) : null;
  const sweeper = new TimeoutSweeper(clock, {
    totalMs: config.revisionTimeoutSeconds * 1000,
    responseStartMs: config.responseStartTimeoutSeconds * 1000,
    idleMs: config.idleTimeoutSeconds * 1000,
  });
  const ctx: ExchangeContext = {
    upstream,
    h2,
    sweeper,
    stats,
    admission: breaker,
    observer: withTracing(createObserver(metrics, deps.requestLog), deps.tracer),
    tracer: deps.tracer,
    now: () => clock.now(),
  };
  const hijacked = new HijackedConnections();
  const onRequest = servingHandler(ctx, drainer);
  const onUpgrade = upgradeHandler(ctx, drainer, config.userPort, hijacked, config.tunnelIdleMs);
  const serving = createServingPort(onRequest, onUpgrade.h1, config.headersTimeoutMs);
  // Knative serves TLS only when its certificate is mounted; the check is made once, at start.
  const certFiles = certFilesIn(config.certsDir);
  const tlsPort = certFilesPresent(certFiles)
    ? createTlsPort(onRequest, onUpgrade.node, {
        files: certFiles,
        settings: config.tls,
        headersTimeoutMs: config.headersTimeoutMs,
        clock,
        ...(deps.certReloadPeriodMs !== undefined ? { reloadPeriodMs: deps.certReloadPeriodMs } : {}),
        log: deps.log ?? ((line) => process.stderr.write(`${line}\n`)),
      })
    : null;
  let sigterm = false;
  const adminServer = http.createServer(admin(drainer, clock, () => sigterm));
  const statServer = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (path === Path.listening) {
      void listeningReport(config.userPort).then((body) =>
        res.writeHead(200, { "content-type": "application/json" }).end(body),
      );
      return;
    }
    if (path !== "/metrics") {
      res.writeHead(404).end();
      return;
    }
    const body = encodeStat(reporter.stat);
    res
      .writeHead(200, { "content-type": PROTOBUF_CONTENT_TYPE, "content-length": body.byteLength })
      .end(body);
  });
  const promServer = metrics
    ? http.createServer((req, res) => {
        if ((req.url ?? "").split("?")[0] !== "/metrics") {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { "content-type": PROMETHEUS_CONTENT_TYPE }).end(metrics.render());
      })
    : null;

  let tick: TimerHandle | null = null;
  const report = () => {
    const now = clock.now();
    reporter.report(stats.report(now), now);
    tick = clock.setTimeout(report, REPORTING_PERIOD_MS);
    (tick as { unref?: () => void }).unref?.();
  };
  tick = clock.setTimeout(report, REPORTING_PERIOD_MS);
  (tick as { unref?: () => void }).unref?.();

  const host = config.bindHost;
  const ports = {
    serving: await listen(serving.front, config.servingPort, host),
    servingTls: tlsPort ? await listen(tlsPort.server, config.servingTlsPort, host) : 0,
    admin: await listen(adminServer, config.adminPort, host),
    metrics: await listen(statServer, config.metricsPort, host),
    userMetrics:
      promServer && config.userMetricsPort >= 0 ? await listen(promServer, config.userMetricsPort, host) : 0,
  };

  const stopRest = async (fast: boolean) => {
    if (tick !== null) clock.clearTimeout(tick);
    sweeper.stop();
    h2?.close();
    await Promise.all([closeServer(statServer), promServer ? closeServer(promServer) : undefined]);
    await (fast ? upstream.destroy() : upstream.close());
  };
  const close = async () => {
    const tlsClosed = tlsPort?.destroy();
    for (const socket of serving.sockets) socket.destroy();
    await Promise.all([closeServer(serving.front), closeServer(adminServer), tlsClosed]);
    await stopRest(true);
  };
  const shutdown = async () => {
    sigterm = true;
    await drainer.drain();
    // Stop accepting, then let requests in flight finish (no deadline, like Go's Shutdown); idle
    // keep-alive connections are closed as soon as they are idle.
    tlsPort?.stopAccepting();
    // Not awaited yet: a listener's close waits for its connections, so an idle keep-alive client would
    // hold the shutdown until its own timeout; the sockets are closed below, then the close completes.
    const listenersClosed = Promise.all([closeServer(serving.front), closeServer(adminServer)]);
    while (sweeper.count() > 0) {
      serving.http1.closeIdle();
      tlsPort?.closeIdle();
      await clock.sleep(20);
    }
    // HTTP/1 connections close once their last answer has gone out; give them a moment to do so.
    serving.http1.closeIdle();
    const open = () => [...serving.sockets].filter((s) => !hijackedSocket(s) && !s.destroyed).length;
    for (let waited = 0; open() > 0 && waited < CLOSE_WAIT_MS; waited += 20) await clock.sleep(20);
    for (const socket of serving.sockets) if (!hijackedSocket(socket)) socket.destroy();
    if (tlsPort) for (const socket of tlsPort.sockets) if (!hijackedSocket(socket)) socket.destroy();
    await hijacked.settle(config.hijackedGraceMs);
    for (const socket of serving.sockets) socket.destroy();
    await Promise.all([listenersClosed, tlsPort?.destroy()]);
    await stopRest(false);
  };
  const hijackedSocket = (socket: import("node:net").Socket) => hijacked.has(socket);

  return { ports, drainer, shutdown, close };
}
