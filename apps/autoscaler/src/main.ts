#!/usr/bin/env node
/**
 * thaw-autoscaler: the autoscaler as its own process (in a cluster, or beside remote activators). Reads
 * thaw.config.yaml, scales each service with the scaler its config names (kubernetes, webhook or local
 * processes), takes stats on `--listen` (websocket and POST /v1/stats) and publishes GET /v1/scale-events.
 */
import { hostname } from "node:os";
import { dirname, resolve } from "node:path";
import { systemClock } from "@thaw/clock";
import { withFlagsOverEnv } from "@thaw/command-line";
import { readCommandLine } from "@thaw/command-line/node";
import { formatIssues, parseDurationMs } from "@thaw/config";
import { loadConfigFile } from "@thaw/config/node";
import { annotationOverrides, withOverrides } from "@thaw/kubernetes";
import { kubeConfigFor, LeaderElector } from "@thaw/kubernetes/node";
import { checkScaleSecret } from "@thaw/protocol";
import { parseProbe } from "@thaw/readiness";
import { AUTOSCALER_CLI } from "./cli-spec.js";
import { DashboardFeed } from "./dashboard/feed.js";
import { logDashboardRecords } from "./dashboard/log.js";
import { DEFAULT_LEASE_NAME } from "./leader-lease.js";
import { jsonLogger } from "./logger.js";
import { policyFor } from "./policy.js";
import { SCALE_WEBHOOK_SECRET_ENV } from "./scale-receiver.js";
import { KubernetesScaler } from "./scalers/kubernetes.js";
import { LocalScaler } from "./scalers/local/local-scaler.js";
import { ScalerRouter } from "./scalers/router.js";
import { WebhookScaler } from "./scalers/webhook.js";
import { startAutoscalerServer } from "./server.js";
import { AutoscalerService } from "./service.js";

async function main(argv: string[]): Promise<number> {
  const { flags } = readCommandLine(AUTOSCALER_CLI, argv, import.meta.url);
  const vars = withFlagsOverEnv(AUTOSCALER_CLI, flags, process.env);
  const config = vars.THAW_CONFIG ?? "thaw.config.yaml";
  const listen = vars.THAW_AUTOSCALER_LISTEN ?? "0.0.0.0:8080";
  const loaded = await loadConfigFile(config);
  if (!loaded.ok) {
    process.stderr.write(`${formatIssues(loaded.issues, config)}\n`);
    return 1;
  }
  const cfg = loaded.value;
  const election = leaderElectionFromEnv(process.env);
  if (!election.ok) {
    process.stderr.write(`thaw-autoscaler: ${election.error}\n`);
    return 2;
  }
  // One secret signs what this process sends (webhook services) and checks what it receives (POST /v1/scale).
  const secret = process.env[SCALE_WEBHOOK_SECRET_ENV] || undefined;
  const bad = secret === undefined ? undefined : checkScaleSecret(secret, SCALE_WEBHOOK_SECRET_ENV);
  const needsSecret = cfg.services.findIndex((s) => s.webhook);
  if (bad || (secret === undefined && needsSecret >= 0)) {
    const why =
      bad?.message ?? `is required: services[${needsSecret}] is scaled through a webhook, which is signed`;
    process.stderr.write(`thaw-autoscaler: ${SCALE_WEBHOOK_SECRET_ENV} ${why}\n`);
    return 1;
  }
  const router = new ScalerRouter();
  let elector: LeaderElector | undefined;
  let kube: KubernetesScaler | undefined;
  let local: LocalScaler | undefined;
  const webhook = new WebhookScaler({ secret: secret ?? "" });
  const service = new AutoscalerService({ scaler: router, clock: systemClock, logger: jsonLogger });
  // The dashboard: this process sees no held request or first byte, so its cold starts come from its own
  // events (queued, scale decision, first ready; in a cluster each pod phase too) and its queue depth is unknown.
  const dashboard = new DashboardFeed({ source: service, clock: systemClock, coldStartsFromService: true });
  // Knative's 30 s unless the config says otherwise: routers in other processes need it to stop routing.
  const quietMs =
    cfg.drain.quietPeriod === undefined ? 30_000 : (parseDurationMs(cfg.drain.quietPeriod) ?? 30_000);
  const annotationsChanged = new Map<string, (annotations: Record<string, string> | undefined) => void>();
  for (const [i, s] of cfg.services.entries()) {
    const rev = { namespace: s.namespace, name: s.name };
    const policy = policyFor({
      global: cfg.autoscaler,
      autoscaling: s.autoscaling,
      containerConcurrency: s.containerConcurrency,
      autoscalingPath: `services[${i}].autoscaling`,
      schedules: s.schedules,
      schedulesPath: `services[${i}].schedules`,
    });
    if (!policy.ok) {
      process.stderr.write(`${formatIssues(policy.issues, config)}\n`);
      return 1;
    }
    if (s.kubernetes) {
      if (!kube) {
        const kubeConfig = kubeConfigFor(
          s.kubernetes.kubeconfig ? { kubeconfig: s.kubernetes.kubeconfig } : {},
        );
        kube = new KubernetesScaler({
          kubeConfig,
          clock: systemClock,
          logger: jsonLogger,
          leading: !election.value.on,
          onDeployment: (r, d) => annotationsChanged.get(`${r.namespace}/${r.name}`)?.(d?.annotations),
          // The pods' statuses: each cold start's phases on the page, and why a revision's pods fail
          // (status podProblem, the page, the log; activators answer held requests with it).
          onPodPhase: (r, phase, at, pod) => dashboard.podPhase(r, phase, at, pod),
          onProblem: (r, problem) => {
            service.reportProblem(r, problem);
          },
        });
        if (election.value.on) {
          const k = kube;
          elector = new LeaderElector({
            kubeConfig,
            clock: systemClock,
            logger: jsonLogger,
            namespace: election.value.namespace,
            name: election.value.name,
            identity: election.value.identity,
            onChange: ({ leading, holder }) => {
              k.setLeading(leading);
              jsonLogger.info("leader", { leading, holder });
            },
          });
        }
      }
      const where = `deployment ${s.kubernetes.namespace ?? s.namespace}/${s.kubernetes.deployment}`;
      let applied = "{}";
      // A Deployment's autoscaling.knative.dev/* annotations override this service's config.
      annotationsChanged.set(`${rev.namespace}/${rev.name}`, (annotations) => {
        const over = annotationOverrides(annotations, where);
        const text = JSON.stringify(over.block);
        if (text === applied) return;
        applied = text;
        for (const issue of over.issues) jsonLogger.warn("annotation ignored", { ...issue });
        const next = policyFor({
          global: cfg.autoscaler,
          autoscaling: withOverrides(s.autoscaling, over.block),
          containerConcurrency: s.containerConcurrency,
          autoscalingPath: where,
          schedules: s.schedules,
          schedulesPath: `services[${i}].schedules`,
        });
        if (next.ok) service.updatePolicy(rev, next.value);
        else for (const issue of next.issues) jsonLogger.warn("annotations not applied", { ...issue });
      });
      kube.register({
        ...rev,
        deployment: s.kubernetes.deployment,
        ...(s.kubernetes.namespace ? { kubernetesNamespace: s.kubernetes.namespace } : {}),
        ...(s.kubernetes.service ? { service: s.kubernetes.service } : {}),
        portName: s.kubernetes.portName,
        metricsPort: s.kubernetes.metricsPort,
      });
      router.route(rev, kube);
    } else if (s.webhook) {
      webhook.register({
        ...rev,
        url: s.webhook.url,
        headers: s.webhook.headers,
        endpoints: s.webhook.endpoints,
      });
      router.route(rev, webhook);
    } else if (s.run) {
      local ??= new LocalScaler({ logger: jsonLogger });
      // @thaw/config validated the probe already; parsing gives its typed form.
      const probe = s.readinessProbe === undefined ? undefined : parseProbe(s.readinessProbe);
      local.register({
        ...rev,
        command: s.run.command,
        env: s.run.env,
        cwd: resolve(dirname(resolve(config)), s.run.cwd ?? "."),
        portEnv: s.run.portEnv,
        portName: s.containerPortName,
        ...(s.run.servingPort !== undefined ? { servingPort: s.run.servingPort } : {}),
        ...(s.run.queueProxy ? { queueProxy: s.run.queueProxy } : {}),
        containerConcurrency: s.containerConcurrency,
        timeoutSeconds: s.timeoutSeconds,
        drainQuietPeriodMs: quietMs,
        ...(probe?.ok ? { readinessProbe: probe.value } : {}),
      });
      router.route(rev, local);
    }
    service.addRevision(rev, policy.value);
  }
  const token = process.env.THAW_AUTOSCALER_TOKEN || cfg.token;
  const i = listen.lastIndexOf(":");
  const server = await startAutoscalerServer({
    service,
    clock: systemClock,
    host: listen.slice(0, i),
    port: Number(listen.slice(i + 1)),
    logger: jsonLogger,
    // THAW_AUTOSCALER_TOKEN (a Secret in a cluster) keeps the token out of the ConfigMap that holds the config.
    ...(token ? { token } : {}),
    ...(secret ? { scaleWebhookSecret: secret } : {}),
    dashboard,
  });
  // One JSON line per scale event and per cold start, with the fields the page shows.
  logDashboardRecords(dashboard, jsonLogger);
  dashboard.start();
  service.start();
  elector?.start();
  jsonLogger.info("thaw-autoscaler listening", { url: server.url, services: cfg.services.length });
  return new Promise<number>((done) => {
    const stop = () => {
      void (async () => {
        await service.stop();
        dashboard.stop();
        // Released on the way out, so a follower takes over at its next retry, not after the lease.
        await elector?.stop();
        await server.close();
        await router.close();
        done(0);
      })();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

/** The env names of leader election, read in one place. */
const ENV = {
  election: "THAW_LEADER_ELECTION",
  lease: "THAW_LEASE_NAME",
  namespace: "POD_NAMESPACE",
  identity: "POD_NAME",
} as const;

/**
 * Leader election settings: on unless THAW_LEADER_ELECTION=off (one replica, or tests); the Lease
 * THAW_LEASE_NAME (default thaw-autoscaler) in POD_NAMESPACE (default `default`), this replica named
 * POD_NAME (default the host name) — the downward API gives both in a pod.
 */
function leaderElectionFromEnv(
  env: Record<string, string | undefined>,
):
  | { ok: true; value: { on: boolean; namespace: string; name: string; identity: string } }
  | { ok: false; error: string } {
  const flag = env[ENV.election] ?? "on";
  if (flag !== "on" && flag !== "off") {
    return { ok: false, error: `${ENV.election} must be on or off, got ${JSON.stringify(flag)}` };
  }
  return {
    ok: true,
    value: {
      on: flag === "on",
      namespace: env[ENV.namespace] || "default",
      name: env[ENV.lease] || DEFAULT_LEASE_NAME,
      identity: env[ENV.identity] || hostname(),
    },
  };
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`thaw-autoscaler: ${String(err)}\n`);
    process.exit(1);
  },
);
