import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { BodyBudget, ConcurrencyReporter } from "@thaw/activation";
import {
  type ActivatorDeps,
  activateAnswer,
  applyPodProblem,
  createActivatorApp,
  type EndpointSource,
  LocalCoordinator,
  type RevisionKey,
  StaticDirectory,
  Telemetry,
} from "@thaw/activator";
import { acceptH2c } from "@thaw/activator/node";
import {
  type AutoscalerEvent,
  AutoscalerService,
  DashboardFeed,
  keyOf,
  LocalScaler,
  type LocalScalerOptions,
  type Logger,
  type PodInfo,
  recordColdStartPhases,
  scaleReceiver,
  silentLogger,
} from "@thaw/autoscaler-service";
import { type Clock, systemClock } from "@thaw/clock";
import { bodyBudgetLimits, parseDurationMs, type ThawConfig } from "@thaw/config";
import {
  forwardAuthApp,
  hostTableResolver,
  IngressHook,
  inProcessActivatorClient,
  type WaitingPage,
} from "@thaw/ingress-hook";
import { nodeConnectionEnded, warmRulesOf } from "@thaw/ingress-hook/node";
import {
  AddressRanges,
  ColdStartRecorder,
  Header,
  headTimeouts,
  type Tracer,
  type WireStatMessage,
} from "@thaw/protocol";
import { lingerOnClose, refuseCredentialTargets } from "@thaw/protocol/node";
import { DEFAULT_TUNNEL_IDLE_MS } from "@thaw/queue-proxy/http1";
import { Agent, fetch as undiciFetch } from "undici";
import type { ResolvedService } from "./config-check.js";
import { containerMoment, containerTargets, podApp } from "./containers/container-pods.js";
import { ACTIVATOR_UPSTREAM, createGateway } from "./gateway.js";
import { drainGateway, EVENT_STREAM_PATH } from "./gateway-drain.js";
import { gatewayH2 } from "./h2.js";
import { type StackMetrics, stackMetrics } from "./metrics.js";
import { podForwarders } from "./pod-forwarders.js";
import { gatewayUpgrade } from "./upgrade.js";

/** Options of {@link startStack}. */
export interface StackOptions {
  clock?: Clock;
  /** Each service's waiting page by revision key (validate.ts reads them with the config); none = no page. */
  waitingPages?: ReadonlyMap<string, WaitingPage>;
  logger?: Logger;
  /** Scale, cold-start and status events as they happen. */
  onEvent?: (e: AutoscalerEvent) => void;
  /** Pod output lines. */
  onPodOutput?: LocalScalerOptions["onPodOutput"];
  /** Override `listen` (tests use 127.0.0.1:0). */
  listen?: string;
  /** Override the queue-proxy argv. */
  queueProxyCommand?: readonly string[];
  /** Environment the pods inherit (default process.env). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
  /** Folder that relative `run.cwd` values start from, and the default `cwd` (the config file's folder). */
  baseDir?: string;
  /** Shared secret of the scale webhook; set, `POST /v1/scale` accepts signed requests (CONTRACTS.md). */
  scaleWebhookSecret?: string;
  /** Spans of the gateway's hook and activator (docs/tracing.md); absent = tracing off. */
  tracer?: Tracer;
  /**
   * Where pods come from instead of a {@link LocalScaler} (the start-up warm-up's in-process pod,
   * warm-up.ts); given the options a LocalScaler would get.
   */
  podScaler?: (options: LocalScalerOptions) => PodScaler;
}

/** What the stack needs of its scaler: a {@link LocalScaler}, or the warm-up's in-process pod. */
export type PodScaler = Pick<
  LocalScaler,
  "register" | "scale" | "pods" | "subscribe" | "allAddresses" | "close"
>;

/** A running `thaw up`. */
export interface Stack {
  /** `http://host:port` of the gateway. */
  url: string;
  service: AutoscalerService;
  scaler: LocalScaler;
  /** The dashboard's samples, scale events and cold-start records (also what `thaw up` logs). */
  feed: DashboardFeed;
  /** The registries behind `GET /_thaw/metrics`. */
  metrics: StackMetrics;
  /** Requests accepted by the gateway and not answered yet. */
  readonly inflight: number;
  /**
   * HTTP/1.1 requests the gateway carried to an app (through the activator or straight to a pod): a proxy
   * in front that sends warm requests to the pods itself leaves this flat.
   */
  readonly carried: number;
  /**
   * Orderly stop: stop accepting, finish every accepted request, stop deciding, then drain and stop every
   * pod. Resolves when no child process is left.
   */
  close(): Promise<void>;
}

/** A host:port string split, with port 0 allowed. */
function hostPort(listen: string): { host: string; port: number } {
  const i = listen.lastIndexOf(":");
  return { host: listen.slice(0, i), port: Number(listen.slice(i + 1)) };
}

/** `host:port` a proxy on this machine reaches a listener on `host` at: a wildcard is reached on loopback. */
function reachable(host: string, port: number): string {
  const h = host.replace(/^\[|\]$/g, "");
  if (h === "" || h === "0.0.0.0") return `127.0.0.1:${port}`;
  if (h === "::") return `[::1]:${port}`;
  return h.includes(":") ? `[${h}]:${port}` : `${h}:${port}`;
}

/**
 * Starts the whole stack in this process: the local scaler (pods = `run.command` behind `thaw-queue-proxy`),
 * the autoscaler service, the activator (in process), the ingress hook, and the gateway on `listen`.
 */
export async function startStack(
  config: ThawConfig,
  services: readonly ResolvedService[],
  opts: StackOptions = {},
): Promise<Stack> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? silentLogger;
  const local = services.filter((s) => s.service.run || s.service.container);
  if (local.length !== services.length) {
    throw new Error(
      "thaw up runs services with `run:` or `container:` only; kubernetes and webhook services need thaw-autoscaler",
    );
  }
  // Containers are checked against their engine before anything starts (docs/containers.md).
  const targets = await containerTargets(local, opts.baseEnv ?? process.env);
  // The gateway routing to these pods is in this process and takes a pod out of routing before it stops
  // it, so the queue-proxy's quiet period (there for routers elsewhere to catch up) is cut short unless the
  // config asks for one. Not to 1 ms: a request the gateway wrote just before it stopped routing may still
  // sit unread in the pod's socket when the queue-proxy closes its idle connections, and the gateway then
  // sees the connection closed under it (a POST cannot be replayed). 100 ms lets the queue-proxy read it.
  const quietMs =
    config.drain.quietPeriod === undefined
      ? 100
      : Math.max(1, parseDurationMs(config.drain.quietPeriod) ?? 1);
  // One recorder for the dashboard, the logs, the metric and the cold-start benchmark's breakdown.
  const recorder = new ColdStartRecorder();
  const onPodOutput: NonNullable<LocalScalerOptions["onPodOutput"]> = (rev, pod, container, line) => {
    // The listening line is looked for only while a cold start of its revision is recorded.
    if (recorder.isOpen(rev.namespace, rev.name)) {
      // A container's moments are those of the cold start's first pod, not of the copies started beside it.
      const moment =
        container === "queue-proxy"
          ? queueProxyMoment(line)
          : recorder.podOf(rev.namespace, rev.name) === pod
            ? containerMoment(line)
            : undefined;
      if (moment) recorder.moment(rev.namespace, rev.name, moment, clock.now());
    }
    opts.onPodOutput?.(rev, pod, container, line);
  };
  const scalerOptions: LocalScalerOptions = {
    logger,
    onPodOutput,
    // What the scaler finds wrong with a revision's pods goes to the terminal and page (a `problem` event
    // and the status's podProblem), and to the activator: a timeout names it, and a failing revision's held
    // requests are answered now with the cause instead of at their deadline.
    onProblem: (rev, problem) => {
      service.reportProblem(rev, problem);
      applyPodProblem({ revisions: directory, coordinator }, rev, problem);
    },
    ...(opts.queueProxyCommand ? { queueProxyCommand: opts.queueProxyCommand } : {}),
    ...(opts.baseEnv ? { baseEnv: opts.baseEnv } : {}),
  };
  // Only the warm-up passes another scaler, and it never reads `Stack.scaler`.
  const scaler = (opts.podScaler?.(scalerOptions) ?? new LocalScaler(scalerOptions)) as LocalScaler;
  const service = new AutoscalerService({ scaler, clock, logger });
  const unsubscribe = opts.onEvent ? service.on(opts.onEvent) : () => {};
  const directory = new StaticDirectory();
  for (const resolved of local) {
    const { service: s, policy, readinessProbe } = resolved;
    const run = s.run;
    const app = podApp(resolved, targets.get(resolved));
    const rev = { namespace: s.namespace, name: s.name };
    scaler.register({
      ...rev,
      command: app.command,
      env: app.env,
      cwd: resolve(opts.baseDir ?? process.cwd(), app.cwd ?? "."),
      portEnv: app.portEnv,
      portName: s.containerPortName,
      ...(app.replicas ? { replicas: app.replicas } : {}),
      ...(app.readinessGate ? { readinessGate: app.readinessGate } : {}),
      ...(app.queueProxyRunner ? { queueProxyRunner: app.queueProxyRunner } : {}),
      ...(run?.servingPort !== undefined ? { servingPort: run.servingPort } : {}),
      ...(run?.queueProxy ? { queueProxy: run.queueProxy } : {}),
      containerConcurrency: s.containerConcurrency,
      timeoutSeconds: s.timeoutSeconds,
      ...(s.responseStartTimeoutSeconds !== undefined
        ? { responseStartTimeoutSeconds: s.responseStartTimeoutSeconds }
        : {}),
      ...(s.idleTimeoutSeconds !== undefined ? { idleTimeoutSeconds: s.idleTimeoutSeconds } : {}),
      ...(readinessProbe ? { readinessProbe } : {}),
      drainQuietPeriodMs: quietMs,
    });
    directory.set(rev, {
      containerConcurrency: s.containerConcurrency,
      timeoutSeconds: s.timeoutSeconds,
      responseStartTimeoutSeconds: s.responseStartTimeoutSeconds ?? 0,
      idleTimeoutSeconds: s.idleTimeoutSeconds ?? 0,
      maxQueue: s.maxQueue,
      bodyBufferCap: s.bodyBufferBytes,
    });
    // Containers that already run (thaw up restarted) start the revision active at that count.
    service.addRevision(rev, policy, targets.get(resolved)?.running ?? 0);
  }

  // The activator, in process: its endpoint source is the local scaler's pods (ready or not: it probes),
  // but for those a health check holds back (Kubernetes' Endpoints would not list them either).
  const addresses = (pods: readonly PodInfo[]) => pods.filter((p) => !p.held).map((p) => p.address);
  const endpoints: EndpointSource = {
    subscribe(key: RevisionKey, onChange: (eps: string[]) => void) {
      onChange(addresses(scaler.pods(key)));
      return scaler.subscribe(key, (pods) => onChange(addresses(pods)));
    },
  };
  // The dashboard's data; its queue depth is the activator's (the coordinator exists before any sample).
  const recording = coldStartRecording(recorder, service, scaler, clock, local, (rev) =>
    coordinator.queueDepth(rev),
  );
  const { feed } = recording;
  // Queue probes on short-lived connections (kubelet's probes use none at all), so a draining pod is not
  // held open by an idle probe socket.
  const probeAgent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });
  // One telemetry for the coordinator (cold starts) and the app (queued, rejected, replayed).
  const telemetry = new Telemetry();
  const coordinator = new LocalCoordinator({
    endpoints,
    clock,
    telemetry,
    fetch: (input, init) =>
      undiciFetch(input as string, {
        ...(init as object),
        dispatcher: probeAgent,
      }) as unknown as Promise<Response>,
    // The gate pokes when a request finds the revision without a ready pod: the cold start's "queued".
    scaler: {
      poke: (key) => {
        recorder.mark(key.namespace, key.name, "queued", clock.now());
        void service.poke(key);
      },
    },
    logger,
  });
  const pool = podForwarders();
  // One budget for every body kept for a replay in this process: the gateway's direct forwards and the
  // activator's held requests alike.
  const bodyBudget = new BodyBudget(bodyBudgetLimits(config));
  const offPools = local.map(({ service: s }) =>
    scaler.subscribe({ namespace: s.namespace, name: s.name }, () => pool.retain(scaler.allAddresses())),
  );
  // Pushed stats, as the autoscaler takes an activator's: from the activator and from the hook's held requests.
  const pushStats = (messages: WireStatMessage[]) => {
    service.record(
      messages.flatMap((m) =>
        m.stat ? [{ rev: { namespace: m.namespace, name: m.name }, stat: m.stat }] : [],
      ),
    );
  };
  const reporter = new ConcurrencyReporter({ podName: "thaw-up", clock, send: pushStats });
  reporter.start();
  const activatorDeps: ActivatorDeps = {
    revisions: directory,
    coordinator,
    forward: pool.forward,
    clock,
    reporter,
    bodyBudget,
    ...(config.token ? { token: config.token } : {}),
    logger,
    // Wake hints go straight to the in-process autoscaler: a floor of 1 pod, never a load report.
    warm: (key, ttlMs) => service.hint(key, ttlMs) ?? clock.now(),
    // An edge gateway's held requests, relayed by its activator Worker (docs/demand.md).
    relayStats: pushStats,
    podName: "thaw-up",
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
  };
  const { app: activator } = createActivatorApp(activatorDeps, telemetry);

  // The hook: host table from the config, activation through the in-process activator, and its warm cache
  // fed directly with ready endpoints (from the activator's prober) and the autoscaler's mode.
  const timeouts = new Map(
    local.map(({ service: s }) => [keyOf({ namespace: s.namespace, name: s.name }), s.timeoutSeconds * 1000]),
  );
  const hook = new IngressHook({
    // The routes; the waiting pages reach the hook through waitingPageFor, with their templates read.
    resolvers: [hostTableResolver(local.map(({ service: { waitingPage: _page, ...s } }) => s))],
    // The activator is in this process: the hook's activation is a call, not an HTTP exchange (issue 30).
    activator: inProcessActivatorClient((req, header) => activateAnswer(req, activatorDeps, header)),
    clock,
    activatorUpstream: ACTIVATOR_UPSTREAM,
    random: Math.random,
    ...(opts.tracer ? { tracer: opts.tracer } : {}),
    // A cold request waits no longer than its revision's timeoutSeconds (Knative counts the wait in it).
    activationTimeoutFor: (key) => timeouts.get(key),
    // `warm:` rules: a request on the path sends wake hints through the same authenticated /v1/activate.
    warm: warmRulesOf(config),
    waitingPageFor: (key) => opts.waitingPages?.get(key),
    // Held cold requests are load, reported as a source of their own (the activator counts them on arrival).
    heldStats: { podName: "thaw-up-hook", send: pushStats },
  });
  const generation = hook.cache.watchConnected();
  const ready = new Map<string, string[]>();
  const feedHook = (rev: RevisionKey) => {
    const status = service.status(rev);
    hook.cache.applyEvent(
      { ...rev, endpoints: ready.get(keyOf(rev)) ?? [], mode: status?.mode ?? "proxy" },
      generation,
      clock.now(),
    );
  };
  const offEndpoints = coordinator.onEndpoints((key, eps) => {
    if (eps.length > 0) recorder.mark(key.namespace, key.name, "firstReady", clock.now());
    ready.set(keyOf(key), eps);
    feedHook(key);
  });
  const offStatus = service.on((e) => {
    if (e.type === "status") feedHook(e.status);
  });
  // Gates exist from the first request on; create them now so readiness is tracked from the start.
  for (const { service: s } of local) {
    const rev = { namespace: s.namespace, name: s.name };
    const cfg = directory.lookup(rev);
    if (cfg) coordinator.gate(rev, cfg);
  }

  let inflight = 0;
  let carried = 0;
  let lastRequestAt = 0;
  const eventStreams = new Set<import("node:http").ServerResponse>();
  const trustedProxies = AddressRanges.parse(config.trustedProxies);
  const metrics = stackMetrics({ telemetry, coordinator, service, hook });
  const offPhases = recordColdStartPhases(feed, metrics.autoscaler.coldStartPhase);
  const gateway = createGateway({
    hook,
    activator: {
      // The first answer from a pod after the cold start's first ready probe is its "first byte" (the
      // held requests wait in the hook's activation or the activator, and all come through here).
      fetch: async (req) => {
        const res = await activator.fetch(req);
        const ns = req.headers.get(Header.namespace);
        const name = req.headers.get(Header.revision);
        if (ns && name && recorder.has(ns, name, "firstReady")) {
          recorder.mark(ns, name, "firstByte", clock.now());
          const record = recorder.finish(ns, name);
          // The record's log line, metrics and dashboard event go out after this answer, not before it.
          if (record) setImmediate(() => feed.coldStart(record));
        }
        return res;
      },
    },
    feed,
    clock,
    forward: pool.forward,
    revisions: () => service.revisions(),
    forwardAuth: forwardAuthApp(hook, { connectionEnded: nodeConnectionEnded }),
    selfAddress: () => (bound === undefined ? undefined : reachable(host, bound)),
    scaleWebhook: scaleReceiver(service, opts.scaleWebhookSecret, clock),
    ...(config.token ? { token: config.token } : {}),
    trustedProxies,
    bodyBufferCap: (rev) => directory.lookup(rev)?.bodyBufferCap ?? 1024 * 1024,
    bodyBudget,
    metrics: () => metrics.render(),
  });
  // Containers that already run (thaw up restarted) are this revision's pods, not ones to start again.
  await Promise.all(
    local.flatMap((s) => {
      const running = targets.get(s)?.running ?? 0;
      return running > 0
        ? [scaler.scale({ namespace: s.service.namespace, name: s.service.name }, running)]
        : [];
    }),
  );
  service.start();
  feed.start();

  const { host, port } = hostPort(opts.listen ?? config.listen);
  let bound: number | undefined;
  const listener = getRequestListener(gateway.fetch);
  const { createServer } = await import("node:http");
  // Requests count until their response is fully sent (or the client went away), streaming bodies included.
  // Slow heads, silent connections and (after 5 s, Node's default) idle keep-alives are cut.
  const limits = headTimeouts(
    config.headersTimeout === undefined ? undefined : parseDurationMs(config.headersTimeout),
    5000,
  );
  const server: Server = createServer(
    { connectionsCheckingInterval: limits.connectionsCheckingInterval },
    refuseCredentialTargets((req, res) => {
      // The dashboard's event stream lasts as long as the page: it is ended at stop, not waited for.
      if (req.url?.startsWith(EVENT_STREAM_PATH)) {
        eventStreams.add(res);
        res.once("close", () => eventStreams.delete(res));
      } else {
        inflight++;
        lastRequestAt = Date.now();
        if (!req.url?.startsWith("/_thaw/") && !req.url?.startsWith("/v1/")) carried++;
        res.once("close", () => inflight--);
      }
      void listener(req, res);
    }),
  );
  lingerOnClose(server);
  server.headersTimeout = limits.headersTimeout;
  server.keepAliveTimeout = limits.keepAliveTimeout;
  server.requestTimeout = limits.requestTimeout;
  // Upgrades (websockets) bypass the request listener: the same host table, then the activator's splice.
  const upgraded = new Set<import("node:stream").Duplex>();
  const onUpgrade = gatewayUpgrade(
    hook,
    { revisions: directory, coordinator, forward: pool.forward, clock, reporter, logger },
    trustedProxies,
    {
      tunnelIdleMs:
        (config.tunnelIdleTimeout && parseDurationMs(config.tunnelIdleTimeout)) || DEFAULT_TUNNEL_IDLE_MS,
    },
  );
  server.on("upgrade", (req, socket, head) => {
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    onUpgrade(req, socket, head);
  });
  // h2c with prior knowledge (HTTP/2, gRPC) on the same port: the same host table, then the activator's
  // HTTP/2 splice. Streams count as in flight until they close.
  const h2 = gatewayH2(
    hook,
    { revisions: directory, coordinator, forward: pool.forward, clock, reporter, logger },
    trustedProxies,
  );
  const h2c = acceptH2c(server, (stream, h, socket) => {
    inflight++;
    lastRequestAt = Date.now();
    stream.once("close", () => inflight--);
    h2.onStream(stream, h, socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // A cold burst opens its connections at once: Node's default backlog (511) would drop the rest.
    server.listen({ port, host, backlog: 4096 }, () => resolve());
  });
  bound = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // 1. The gateway: accepted requests finish, within one bound for every kind of connection.
      await drainGateway({
        server,
        h2c,
        upgraded,
        eventStreams,
        inflight: () => inflight,
        lastRequestAt: () => lastRequestAt,
      });
      // 2. Stop deciding, then drain and stop every pod.
      await service.stop();
      feed.stop();
      offPhases();
      recording.off();
      offStatus();
      offEndpoints();
      for (const off of offPools) off();
      unsubscribe();
      reporter.stop();
      hook.close();
      coordinator.close();
      // Our idle keep-alive connections would hold the pods' drain open: close them first.
      h2.close();
      await Promise.all([pool.close(), probeAgent.close()]);
      await scaler.close();
    })();
    return closing;
  };

  return {
    url: `http://${host}:${bound}`,
    service,
    scaler,
    feed,
    metrics,
    get inflight() {
      return inflight;
    },
    get carried() {
      return carried;
    },
    close,
  };
}

/** The moment a queue-proxy's output line marks, if any. */
function queueProxyMoment(line: string): "queueProxyListening" | undefined {
  return line.includes("thaw-queue-proxy listening") ? "queueProxyListening" : undefined;
}

/**
 * The cold-start recorder and the dashboard feed of `thaw up`: scale decisions and pod starts are marked
 * here; queued, first ready probe and first byte where the activator and gateway see them.
 */
function coldStartRecording(
  recorder: ColdStartRecorder,
  service: AutoscalerService,
  scaler: LocalScaler,
  clock: Clock,
  local: readonly ResolvedService[],
  queueDepth: (rev: RevisionKey) => number,
): { feed: DashboardFeed; off: () => void } {
  const offs = [
    service.on((e) => {
      if (e.type !== "scale") return;
      if (e.from === 0 && e.to > 0) recorder.mark(e.namespace, e.name, "scaleDecision", e.at);
      // Back to zero before any answer (the requests gave up): that cold start will not finish.
      if (e.to === 0) recorder.abandon(e.namespace, e.name);
    }),
    ...local.map(({ service: s }) =>
      scaler.subscribe({ namespace: s.namespace, name: s.name }, (pods) => {
        const first = pods.reduce<(typeof pods)[number] | undefined>(
          (a, p) => (a && a.startedAt <= p.startedAt ? a : p),
          undefined,
        );
        if (!first) return;
        recorder.mark(s.namespace, s.name, "podStarted", first.startedAt, first.name);
        // The local scaler's kubelet-style queue probe passed (the activator's own probe may be first).
        if (pods.some((p) => p.ready)) recorder.moment(s.namespace, s.name, "podReady", clock.now());
      }),
    ),
  ];
  const feed = new DashboardFeed({ source: service, clock, queueDepth });
  return {
    feed,
    off: () => {
      for (const off of offs) off();
    },
  };
}
