#!/usr/bin/env node
/**
 * `thaw-ingress-hook`: the forward-auth service. Configuration comes from flags, then environment
 * variables, read once here.
 */
import { parseArgs } from "node:util";
import { formatTracingIssues, tracingFromEnv } from "@thaw/protocol/otel";
import { loadHookConfig } from "./config-file.js";
import { startIngressHook } from "./service.js";

const { values } = parseArgs({
  options: {
    listen: { type: "string", default: process.env.THAW_HOOK_LISTEN ?? "127.0.0.1:8090" },
    activator: { type: "string", default: process.env.THAW_ACTIVATOR_URL },
    "activator-token": { type: "string", default: process.env.THAW_ACTIVATOR_TOKEN },
    token: { type: "string", default: process.env.THAW_HOOK_TOKEN },
    config: { type: "string", default: process.env.THAW_CONFIG ?? "thaw.config.yaml" },
    "route-token": { type: "string", default: process.env.THAW_ROUTE_TOKEN },
    "timeout-ms": { type: "string", default: "60000" },
    "warm-ttl-ms": { type: "string", default: "2000" },
    "headers-timeout-ms": { type: "string", default: process.env.THAW_HEADERS_TIMEOUT_MS ?? "60000" },
    "activator-upstream": { type: "string", default: process.env.THAW_ACTIVATOR_UPSTREAM },
    "reject-internal-headers": { type: "boolean", default: false },
    "no-watch": { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  },
});

if (values.help || !values.activator) {
  process.stderr.write(
    "usage: thaw-ingress-hook --activator http://127.0.0.1:8089 [--listen 127.0.0.1:8090] [--config thaw.config.yaml]\n" +
      "  [--token TOKEN] [--route-token SECRET] [--activator-token TOKEN] [--timeout-ms 60000] [--warm-ttl-ms 2000]\n" +
      "  [--headers-timeout-ms 60000]\n" +
      "  [--activator-upstream host:port|none] [--reject-internal-headers] [--no-watch]\n",
  );
  process.exit(values.help ? 0 : 2);
}
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

const headersTimeoutMs = Number(values["headers-timeout-ms"]);
if (!Number.isInteger(headersTimeoutMs) || headersTimeoutMs < 100 || headersTimeoutMs > 3_600_000) {
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
const { config, services } = await loadHookConfig(values.config);
const activatorToken = values["activator-token"] ?? config.token;
// The proxies' token for forward-auth calls; thaw.config.yaml's `token` unless given.
const token = values.token ?? config.token;

const svc = await startIngressHook({
  host,
  port,
  activatorUrl: values.activator,
  services,
  activationTimeoutMs: Number(values["timeout-ms"]),
  warmTtlMs: Number(values["warm-ttl-ms"]),
  headersTimeoutMs,
  internalHeaders: values["reject-internal-headers"] ? "reject" : "strip",
  watch: !values["no-watch"],
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
