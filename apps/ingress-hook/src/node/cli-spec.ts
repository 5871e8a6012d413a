/** `thaw-ingress-hook`'s command line: every flag, the variable it overrides and its default (`--help`). */
import type { Command } from "@thaw/command-line";
import { TRACING_ENV_VARS } from "@thaw/protocol/otel";

/** The table `thaw-ingress-hook` reads its flags from and prints with `--help`. */
export const HOOK_CLI: Command = {
  name: "thaw-ingress-hook",
  summary:
    "the forward-auth service for nginx, Traefik, Envoy and Istio: lets requests to warm revisions through and sends requests to cold ones to the activator",
  usage: "--activator URL [flags]",
  flags: [
    {
      name: "--activator",
      value: "URL",
      env: "THAW_ACTIVATOR_URL",
      help: "the activator, e.g. http://127.0.0.1:8012 (required)",
    },
    {
      name: "--listen",
      value: "HOST:PORT",
      env: "THAW_HOOK_LISTEN",
      default: "127.0.0.1:8090",
      help: "listen address",
    },
    {
      name: "--config",
      value: "FILE",
      env: "THAW_CONFIG",
      default: "thaw.config.yaml",
      help: "the services and hosts to decide for",
    },
    {
      name: "--token",
      value: "TOKEN",
      env: "THAW_HOOK_TOKEN",
      help: "bearer token the proxies send on forward-auth calls (default: the config's token)",
    },
    {
      name: "--activator-token",
      value: "TOKEN",
      env: "THAW_ACTIVATOR_TOKEN",
      help: "bearer token for the activator's /v1/* (default: the config's token)",
    },
    {
      name: "--route-token",
      value: "SECRET",
      env: "THAW_ROUTE_TOKEN",
      help: "secret the proxy's route to the activator carries, so clients cannot reach it directly",
    },
    { name: "--timeout-ms", value: "MS", default: "60000", help: "longest hold of a cold request" },
    { name: "--warm-ttl-ms", value: "MS", default: "2000", help: "how long a warm answer is reused" },
    {
      name: "--headers-timeout-ms",
      value: "MS",
      env: "THAW_HEADERS_TIMEOUT_MS",
      default: "60000",
      help: "longest time to send a request head (slowloris), 100 to 3600000",
    },
    {
      name: "--activator-upstream",
      value: "HOST:PORT|none",
      env: "THAW_ACTIVATOR_UPSTREAM",
      help: "where the proxy reaches the activator (default: the --activator address; none if it cannot)",
    },
    {
      name: "--reject-internal-headers",
      default: "false",
      help: "refuse requests carrying Thaw's internal headers instead of stripping them",
    },
    {
      name: "--no-watch",
      default: "false",
      help: "do not follow the activator's /v1/watch (answers from probes only)",
    },
  ],
  env: TRACING_ENV_VARS,
};
