#!/usr/bin/env node
/**
 * thaw-autoscaler: the autoscaler as its own process (in a cluster, or beside remote activators). Reads
 * thaw.config.yaml, scales each service with the scaler its config names (kubernetes, webhook or local
 * processes), takes stats on `--listen` (websocket and POST /v1/stats) and publishes GET /v1/scale-events.
 */
import { dirname, resolve } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { systemClock } from "@thaw/clock";
import { formatIssues, parseDurationMs } from "@thaw/config";
import { loadConfigFile } from "@thaw/config/node";
import { parseProbe } from "@thaw/readiness";
import { jsonLogger } from "./logger.js";
import { policyFor } from "./policy.js";
import { KubernetesScaler } from "./scalers/kubernetes.js";
import { LocalScaler } from "./scalers/local/local-scaler.js";
import { ScalerRouter } from "./scalers/router.js";
import { WebhookScaler } from "./scalers/webhook.js";
import { startAutoscalerServer } from "./server.js";
import { AutoscalerService } from "./service.js";

const USAGE = "usage: thaw-autoscaler --config thaw.config.yaml [--listen 0.0.0.0:8080]";

async function main(argv: string[]): Promise<number> {
  let config = process.env.THAW_CONFIG ?? "thaw.config.yaml";
  let listen = process.env.THAW_AUTOSCALER_LISTEN ?? "0.0.0.0:8080";
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--config") config = argv[++i] ?? config;
    else if (a === "--listen") listen = argv[++i] ?? listen;
    else {
      process.stderr.write(`${USAGE}\n`);
      return 2;
    }
  }
  const loaded = await loadConfigFile(config);
  if (!loaded.ok) {
    process.stderr.write(`${formatIssues(loaded.issues, config)}\n`);
    return 1;
  }
  const cfg = loaded.value;
  const router = new ScalerRouter();
  let kube: KubernetesScaler | undefined;
  let local: LocalScaler | undefined;
  const webhook = new WebhookScaler();
  const service = new AutoscalerService({ scaler: router, clock: systemClock, logger: jsonLogger });
  // Knative's 30 s unless the config says otherwise: routers in other processes need it to stop routing.
  const quietMs =
    cfg.drain.quietPeriod === undefined ? 30_000 : (parseDurationMs(cfg.drain.quietPeriod) ?? 30_000);
  for (const [i, s] of cfg.services.entries()) {
    const rev = { namespace: s.namespace, name: s.name };
    const policy = policyFor({
      global: cfg.autoscaler,
      autoscaling: s.autoscaling,
      containerConcurrency: s.containerConcurrency,
      autoscalingPath: `services[${i}].autoscaling`,
    });
    if (!policy.ok) {
      process.stderr.write(`${formatIssues(policy.issues, config)}\n`);
      return 1;
    }
    if (s.kubernetes) {
      if (!kube) {
        const kc = new KubeConfig();
        if (s.kubernetes.kubeconfig) kc.loadFromFile(s.kubernetes.kubeconfig);
        else kc.loadFromDefault();
        kube = new KubernetesScaler({ kubeConfig: kc, logger: jsonLogger });
      }
      kube.register({
        ...rev,
        deployment: s.kubernetes.deployment,
        ...(s.kubernetes.namespace ? { kubernetesNamespace: s.kubernetes.namespace } : {}),
        portName: s.kubernetes.portName,
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
        containerConcurrency: s.containerConcurrency,
        timeoutSeconds: s.timeoutSeconds,
        drainQuietPeriodMs: quietMs,
        ...(probe?.ok ? { readinessProbe: probe.value } : {}),
      });
      router.route(rev, local);
    }
    service.addRevision(rev, policy.value);
  }
  const i = listen.lastIndexOf(":");
  const server = await startAutoscalerServer({
    service,
    clock: systemClock,
    host: listen.slice(0, i),
    port: Number(listen.slice(i + 1)),
    logger: jsonLogger,
    // Stats, scale events and status need it: THAW_AUTOSCALER_TOKEN (a Kubernetes Secret), else the config's.
    ...(process.env.THAW_AUTOSCALER_TOKEN || cfg.token
      ? { token: process.env.THAW_AUTOSCALER_TOKEN || cfg.token }
      : {}),
  });
  service.on((e) => {
    if (e.type !== "status") jsonLogger.info(e.type, { ...e });
  });
  service.start();
  jsonLogger.info("thaw-autoscaler listening", { url: server.url, services: cfg.services.length });
  return new Promise<number>((done) => {
    const stop = () => {
      void (async () => {
        await service.stop();
        await server.close();
        await router.close();
        done(0);
      })();
    };
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`thaw-autoscaler: ${String(err)}\n`);
    process.exit(1);
  },
);
