#!/usr/bin/env node
/**
 * `thaw-ingress-hook`: the forward-auth service. Configuration comes from flags, then environment
 * variables, read once here.
 */
import { withFlagsOverEnv } from "@thaw/command-line";
import { exitWithUsageError, readCommandLine } from "@thaw/command-line/node";
import { HOOK_CLI } from "./cli-spec.js";

// --help, --version and a mistyped flag are answered before anything else is loaded or checked.
const line = readCommandLine(HOOK_CLI, process.argv.slice(2), import.meta.url);
const vars = withFlagsOverEnv(HOOK_CLI, line.flags, process.env);
const values = {
  listen: vars.THAW_HOOK_LISTEN ?? "127.0.0.1:8090",
  activator: vars.THAW_ACTIVATOR_URL,
  "activator-token": vars.THAW_ACTIVATOR_TOKEN,
  token: vars.THAW_HOOK_TOKEN,
  config: vars.THAW_CONFIG ?? "thaw.config.yaml",
  "route-token": vars.THAW_ROUTE_TOKEN,
  "timeout-ms": line.flags["--timeout-ms"] ?? "60000",
  "warm-ttl-ms": line.flags["--warm-ttl-ms"] ?? "2000",
  // Unset: the service's own defaults (60 s for a head, 65 s idle); set, it bounds the idle time too.
  "headers-timeout-ms": vars.THAW_HEADERS_TIMEOUT_MS,
  "activator-upstream": vars.THAW_ACTIVATOR_UPSTREAM,
  "reject-internal-headers": line.flags["--reject-internal-headers"] === "true",
  "no-watch": line.flags["--no-watch"] === "true",
};
if (!values.activator) exitWithUsageError(HOOK_CLI.name, "--activator URL (THAW_ACTIVATOR_URL) is required");
const { formatTracingIssues, tracingFromEnv } = await import("@thaw/protocol/otel");
const { loadHookConfig } = await import("./config-file.js");
const { startIngressHook } = await import("./service.js");

const upstreamFlag = values["activator-upstream"];
if (
  upstreamFlag !== undefined &&
  upstreamFlag !== "none" &&
  !/^[^\s/:]+:\d{1,5}$|^\[[0-9a-f:.]+\]:\d{1,5}$/i.test(upstreamFlag)
) {
  process.stderr.write(
    `thaw-ingress-hook: --activator-upstream (THAW_ACTIVATOR_UPSTREAM) must be host:port or none, got ${JSON.stringify(upstreamFlag)}\n`,
  );
  process.exit(2);
}

const headersTimeoutMs =
  values["headers-timeout-ms"] === undefined ? undefined : Number(values["headers-timeout-ms"]);
if (
  headersTimeoutMs !== undefined &&
  (!Number.isInteger(headersTimeoutMs) || headersTimeoutMs < 100 || headersTimeoutMs > 3_600_000)
) {
  process.stderr.write(
    `thaw-ingress-hook: --headers-timeout-ms (THAW_HEADERS_TIMEOUT_MS) must be an integer from 100 to 3600000, got ${JSON.stringify(values["headers-timeout-ms"])}\n`,
  );
  process.exit(2);
}

// OTEL_TRACES_EXPORTER etc. (docs/tracing.md): the SDK is loaded only when tracing is on.
const tracing = await tracingFromEnv(process.env, { serviceName: "thaw-ingress-hook" });
if (!tracing.ok) {
  process.stderr.write(`${formatTracingIssues(tracing.issues).replace(/^/gm, "thaw-ingress-hook: ")}\n`);
  process.exit(2);
}

const listen = values.listen;
const colon = listen.lastIndexOf(":");
const host = colon === -1 ? "127.0.0.1" : listen.slice(0, colon);
const port = Number(colon === -1 ? listen : listen.slice(colon + 1));
const { config, services, warm, pages } = await loadHookConfig(values.config);
const activatorToken = values["activator-token"] ?? config.token;
// The proxies' token for forward-auth calls; thaw.config.yaml's `token` unless given.
const token = values.token ?? config.token;

const svc = await startIngressHook({
  host,
  port,
  activatorUrl: values.activator,
  services,
  // `warm:` rules: a request on the path sends wake hints to the activator (/v1/activate ttlSeconds).
  warm,
  waitingPageFor: (key) => pages.get(key),
  activationTimeoutMs: Number(values["timeout-ms"]),
  warmTtlMs: Number(values["warm-ttl-ms"]),
  ...(headersTimeoutMs === undefined ? {} : { headersTimeoutMs }),
  internalHeaders: values["reject-internal-headers"] ? "reject" : "strip",
  watch: !values["no-watch"],
  // The replica's name in its held-request stats, as the activator names its own (POD_NAME in Kubernetes).
  podName: process.env.POD_NAME || process.env.HOSTNAME || "thaw-ingress-hook",
  ...(activatorToken ? { activatorToken } : {}),
  ...(token ? { token } : {}),
  ...(values["route-token"] ? { routeToken: values["route-token"] } : {}),
  ...(tracing.value ? { tracer: tracing.value.tracer } : {}),
  // Default: the --activator address; `none` when the proxy cannot reach the activator.
  ...(upstreamFlag !== undefined ? { activatorUpstream: upstreamFlag === "none" ? null : upstreamFlag } : {}),
  onWatchState: (s, d) => process.stderr.write(`thaw-ingress-hook: watch ${s}${d ? ` (${d})` : ""}\n`),
});
process.stdout.write(`thaw-ingress-hook listening on http://${host}:${svc.port}\n`);

for (const sig of ["SIGTERM", "SIGINT"] as const) {
  process.once(sig, () => {
    void svc
      .close()
      .then(() => tracing.value?.shutdown())
      .catch(() => {})
      .then(() => process.exit(0));
  });
}
