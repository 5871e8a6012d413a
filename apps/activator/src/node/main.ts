#!/usr/bin/env -S node --min-semi-space-size=8 --max-semi-space-size=8 --initial-old-space-size=8
/**
 * `thaw-activator`: the Node activator. Configuration comes from flags and THAW_* variables (README);
 * SIGTERM makes the kubelet probe fail, waits THAW_DRAIN_DELAY_MS, then lets in-flight requests finish.
 */
import { readCommandLine } from "@thaw/command-line/node";
import { ACTIVATOR_CLI } from "./cli-spec.js";

// --help, --version and a mistyped flag are answered before anything else is loaded or checked.
readCommandLine(ACTIVATOR_CLI, process.argv.slice(2), import.meta.url);
const { systemClock } = await import("@thaw/clock");
const { formatTracingIssues, tracingFromEnv } = await import("@thaw/protocol/otel");
const { openBindError, readConfig } = await import("./config.js");
const { jsonLogger } = await import("./json-logger.js");
const { startActivator } = await import("./server.js");

const parsed = readConfig(process.argv.slice(2), process.env);
if (!parsed.ok) {
  for (const i of parsed.issues) process.stderr.write(`thaw-activator: ${i.path}: ${i.message}\n`);
  process.exit(2);
}
// OTEL_TRACES_EXPORTER etc. (docs/tracing.md): the SDK is loaded only when tracing is on.
const tracing = await tracingFromEnv(process.env, { serviceName: "thaw-activator" });
if (!tracing.ok) {
  process.stderr.write(`${formatTracingIssues(tracing.issues).replace(/^/gm, "thaw-activator: ")}\n`);
  process.exit(2);
}
const logger = jsonLogger();
// --config and the cluster Services: revisions, pods, peers and autoscalers from the API server. Loaded
// only when asked for: the Kubernetes client costs start-up time a plain activator does not need.
const { configFile, cluster } = parsed.config;
const parts =
  configFile || cluster?.activatorService || cluster?.autoscalerService
    ? await (await import("./cluster.js")).clusterParts(parsed.config, { clock: systemClock, logger })
    : ({ ok: true, value: undefined } as const);
if (!parts.ok) {
  process.stderr.write(`thaw-activator: ${parts.error}\n`);
  process.exit(2);
}
const config = {
  ...parsed.config,
  token: parsed.config.token ?? parts.value?.token,
  // A flag or variable wins over the config file's key.
  bodyBudget: { ...parts.value?.bodyBudget, ...parsed.config.bodyBudget },
};
const open = openBindError(config);
if (open) {
  process.stderr.write(`thaw-activator: ${open}\n`);
  process.exit(2);
}
const running = await startActivator(config, {
  logger,
  ...parts.value?.overrides,
  ...(tracing.value ? { tracer: tracing.value.tracer } : {}),
});
logger.info("listening", {
  host: config.host,
  port: running.port,
  revisions: parts.value?.count ?? config.revisions.length,
});
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  logger.info("signal", { signal });
  running.drain().then(
    async () => {
      await tracing.value?.shutdown().catch(() => {});
      process.exit(0);
    },
    (err: unknown) => {
      logger.error("drain failed", { error: String(err) });
      process.exit(1);
    },
  );
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
