import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { ConcurrencyReporter } from "@thaw/activation";
import {
  createActivatorApp,
  type EndpointSource,
  LocalCoordinator,
  type RevisionKey,
  StaticDirectory,
} from "@thaw/activator";
import { acceptH2c } from "@thaw/activator/node";
import {
  type AutoscalerEvent,
  AutoscalerService,
  keyOf,
  LocalScaler,
  type LocalScalerOptions,
  type Logger,
  scaleReceiver,
  silentLogger,
} from "@thaw/autoscaler-service";
import { type Clock, systemClock } from "@thaw/clock";
import { parseDurationMs, type ThawConfig } from "@thaw/config";
import { forwardAuthApp, hostTableResolver, httpActivatorClient, IngressHook } from "@thaw/ingress-hook";
import { AddressRanges } from "@thaw/protocol";
import { Agent, fetch as undiciFetch } from "undici";
import type { ResolvedService } from "./config-check.js";
import { ACTIVATOR_UPSTREAM, createGateway } from "./gateway.js";
import { gatewayH2 } from "./h2.js";
import { podForwarders } from "./pod-forwarders.js";
import { gatewayUpgrade } from "./upgrade.js";

/** Options of {@link startStack}. */
export interface StackOptions {
  clock?: Clock;
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
}

/** A running `thaw up`. */
export interface Stack {
  /** `http://host:port` of the gateway. */
  url: string;
  service: AutoscalerService;
  scaler: LocalScaler;
  /** Requests accepted by the gateway and not answered yet. */
  readonly inflight: number;
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
  const local = services.filter((s) => s.service.run);
  if (local.length !== services.length) {
    throw new Error(
      "thaw up runs services with `run:` only; kubernetes and webhook services need thaw-autoscaler",
    );
  }
  // The gateway routing to these pods is in this process and takes a pod out of routing before it stops
  // it, so the queue-proxy's quiet period (there for routers elsewhere to catch up) is skipped unless the
  // config asks for one. 1 ms: the queue-proxy reads 0 as "the default" (45 s).
  const quietMs =
    config.drain.quietPeriod === undefined ? 1 : Math.max(1, parseDurationMs(config.drain.quietPeriod) ?? 1);
  const scaler = new LocalScaler({
    logger,
    ...(opts.onPodOutput ? { onPodOutput: opts.onPodOutput } : {}),
    ...(opts.queueProxyCommand ? { queueProxyCommand: opts.queueProxyCommand } : {}),
    ...(opts.baseEnv ? { baseEnv: opts.baseEnv } : {}),
  });
  const service = new AutoscalerService({ scaler, clock, logger });
  const unsubscribe = opts.onEvent ? service.on(opts.onEvent) : () => {};
  const directory = new StaticDirectory();
  for (const { service: s, policy, readinessProbe } of local) {
    const run = s.run as NonNullable<typeof s.run>;
    const rev = { namespace: s.namespace, name: s.name };
    scaler.register({
      ...rev,
      command: run.command,
      env: run.env,
      cwd: resolve(opts.baseDir ?? process.cwd(), run.cwd ?? "."),
      portEnv: run.portEnv,
      ...(run.servingPort !== undefined ? { servingPort: run.servingPort } : {}),
      ...(run.queueProxy ? { queueProxy: run.queueProxy } : {}),
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
    service.addRevision(rev, policy);
  }

  // The activator, in process: its endpoint source is the local scaler's pods (ready or not: it probes).
  const endpoints: EndpointSource = {
    subscribe(key: RevisionKey, onChange: (eps: string[]) => void) {
      onChange(scaler.pods(key).map((p) => p.address));
      return scaler.subscribe(key, (pods) => onChange(pods.map((p) => p.address)));
    },
  };
  // Queue probes on short-lived connections (kubelet's probes use none at all), so a draining pod is not
  // held open by an idle probe socket.
  const probeAgent = new Agent({ keepAliveTimeout: 1000, keepAliveMaxTimeout: 1000 });
  const coordinator = new LocalCoordinator({
    endpoints,
    clock,
    fetch: (input, init) =>
      undiciFetch(input as string, {
        ...(init as object),
        dispatcher: probeAgent,
      }) as unknown as Promise<Response>,
    scaler: { poke: (key) => void service.poke(key) },
    logger,
  });
  const pool = podForwarders();
  const offPools = local.map(({ service: s }) =>
    scaler.subscribe({ namespace: s.namespace, name: s.name }, () => pool.retain(scaler.allAddresses())),
  );
  const reporter = new ConcurrencyReporter({
    podName: "thaw-up",
    clock,
    send: (messages) =>
      service.record(
        messages.flatMap((m) =>
          m.stat ? [{ rev: { namespace: m.namespace, name: m.name }, stat: m.stat }] : [],
        ),
      ),
  });
  reporter.start();
  const { app: activator } = createActivatorApp({
    revisions: directory,
    coordinator,
    forward: pool.forward,
    clock,
    reporter,
    ...(config.token ? { token: config.token } : {}),
    logger,
    podName: "thaw-up",
  });

  // The hook: host table from the config, activation through the in-process activator, and its warm cache
  // fed directly with ready endpoints (from the activator's prober) and the autoscaler's mode.
  const hook = new IngressHook({
    resolvers: [hostTableResolver(local.map(({ service: s }) => ({ ...s, hosts: s.hosts, paths: s.paths })))],
    activator: httpActivatorClient({
      baseUrl: "http://activator.thaw.internal",
      fetch: (req) => Promise.resolve(activator.fetch(req)),
      clock,
      ...(config.token ? { token: config.token } : {}),
    }),
    clock,
    activatorUpstream: ACTIVATOR_UPSTREAM,
    random: Math.random,
  });
  const generation = hook.cache.watchConnected();
  const ready = new Map<string, string[]>();
  const feed = (rev: RevisionKey) => {
    const status = service.status(rev);
    hook.cache.applyEvent(
      { ...rev, endpoints: ready.get(keyOf(rev)) ?? [], mode: status?.mode ?? "proxy" },
      generation,
      clock.now(),
    );
  };
  const offEndpoints = coordinator.onEndpoints((key, eps) => {
    ready.set(keyOf(key), eps);
    feed(key);
  });
  const offStatus = service.on((e) => {
    if (e.type === "status") feed(e.status);
  });
  // Gates exist from the first request on; create them now so readiness is tracked from the start.
  for (const { service: s } of local) {
    const rev = { namespace: s.namespace, name: s.name };
    const cfg = directory.lookup(rev);
    if (cfg) coordinator.gate(rev, cfg);
  }

  let inflight = 0;
  let lastRequestAt = 0;
  const trustedProxies = AddressRanges.parse(config.trustedProxies);
  const gateway = createGateway({
    hook,
    activator,
    forward: pool.forward,
    revisions: () => service.revisions(),
    forwardAuth: forwardAuthApp(hook),
    scaleWebhook: scaleReceiver(service, opts.scaleWebhookSecret, clock),
    ...(config.token ? { token: config.token } : {}),
    trustedProxies,
    bodyBufferCap: (rev) => directory.lookup(rev)?.bodyBufferCap ?? 1024 * 1024,
  });
  service.start();

  const { host, port } = hostPort(opts.listen ?? config.listen);
  const listener = getRequestListener(gateway.fetch);
  const { createServer } = await import("node:http");
  // Requests count until their response is fully sent (or the client went away), streaming bodies included.
  const server: Server = createServer((req, res) => {
    inflight++;
    lastRequestAt = Date.now();
    res.once("close", () => inflight--);
    void listener(req, res);
  });
  // Upgrades (websockets) bypass the request listener: the same host table, then the activator's splice.
  const upgraded = new Set<import("node:stream").Duplex>();
  const onUpgrade = gatewayUpgrade(
    hook,
    { revisions: directory, coordinator, forward: pool.forward, clock, reporter, logger },
    trustedProxies,
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
  const bound = (server.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      // 1. No new connections. Connections already open may still send a request: wait until nothing is in
      //    flight and no request started for a moment, then close the idle ones.
      //    Connections the kernel completed but Node has not accepted yet (a busy event loop) would be reset
      //    by closing the listener at once, so they get a moment to be accepted and served first.
      await new Promise((r) => setTimeout(r, 100));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (let i = 0; i < 1_000_000; i++) {
        if (inflight === 0 && Date.now() - lastRequestAt >= 300) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      // 2. Keep-alive connections that stay idle are closed; busy ones after their response.
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      server.closeIdleConnections();
      h2c.closeSessions();
      await closed;
      clearInterval(idle);
      // 3. Stop deciding, then drain and stop every pod.
      await service.stop();
      offStatus();
      offEndpoints();
      for (const off of offPools) off();
      unsubscribe();
      reporter.stop();
      coordinator.close();
      // Our idle keep-alive connections would hold the pods' drain open: close them first.
      h2.close();
      await Promise.all([pool.close(), probeAgent.close()]);
      await scaler.close();
      for (const socket of upgraded) socket.destroy();
    })();
    return closing;
  };

  return {
    url: `http://${host}:${bound}`,
    service,
    scaler,
    get inflight() {
      return inflight;
    },
    close,
  };
}
