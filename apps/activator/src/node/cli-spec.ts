/** `thaw-activator`'s command line: every flag, the variable it overrides and its default (`--help`). */
import type { Command } from "@thaw/command-line";
import { TRACING_ENV_VARS } from "@thaw/protocol/otel";

/** Where the bare bin listens: this machine only, so it is never an open proxy by accident. */
export const DEFAULT_HOST = "127.0.0.1";

/** The table `thaw-activator` reads its flags from and prints with `--help`. */
export const ACTIVATOR_CLI: Command = {
  name: "thaw-activator",
  summary:
    "the Node activator: holds requests for revisions with no ready pod, asks the autoscaler to scale up, then forwards them (and answers /v1/activate for the ingress hook)",
  flags: [
    {
      name: "--host",
      value: "ADDRESS",
      env: "THAW_ACTIVATOR_HOST",
      default: DEFAULT_HOST,
      help: "listen address; 0.0.0.0 or :: for every address (needs --token or --insecure-no-token)",
    },
    {
      name: "--port",
      value: "PORT",
      env: "THAW_ACTIVATOR_PORT",
      default: "8012",
      help: "listen port (0 = any)",
    },
    {
      name: "--token",
      value: "TOKEN",
      env: "THAW_ACTIVATOR_TOKEN",
      help: "bearer token for /v1/* and /metrics, also sent to the autoscaler (default: none, or the config's token)",
    },
    {
      name: "--insecure-no-token",
      env: "THAW_INSECURE_NO_TOKEN",
      default: "false",
      help: "allow listening on a non-loopback address without a token (anyone who reaches it can use /v1/*)",
    },
    {
      name: "--autoscaler",
      value: "URL",
      env: "THAW_AUTOSCALER_URL",
      help: "ws://host:port or http://host:port of the autoscaler's stats (default: stats dropped)",
    },
    {
      name: "--pod-name",
      value: "NAME",
      env: "THAW_POD_NAME",
      default: "POD_NAME, else HOSTNAME, else thaw-activator",
      help: "pod_name of the stats",
    },
    {
      name: "--drain-delay-ms",
      value: "MS",
      env: "THAW_DRAIN_DELAY_MS",
      default: "45000",
      help: "after SIGTERM, how long the probe fails before the listener closes",
    },
    {
      name: "--drain-timeout-ms",
      value: "MS",
      env: "THAW_DRAIN_TIMEOUT_MS",
      default: "555000",
      help: "longest wait for in-flight requests after the listener closed",
    },
    {
      name: "--tunnel-idle-ms",
      value: "MS",
      env: "THAW_TUNNEL_IDLE_MS",
      default: "300000",
      help: "an upgraded connection (websocket) with no byte either way for this long is closed",
    },
    {
      name: "--headers-timeout-ms",
      value: "MS",
      env: "THAW_HEADERS_TIMEOUT_MS",
      default: "60000",
      help: "longest time to send a request head (slowloris)",
    },
    {
      name: "--body-buffer-revision-bytes",
      value: "BYTES",
      env: "THAW_BODY_BUFFER_REVISION_BYTES",
      default: "the config's bodyBufferRevisionBytes, else 16777216 (16 MiB)",
      help: "all request bodies one revision keeps for a replay at once; a body that does not fit streams once",
    },
    {
      name: "--body-buffer-process-bytes",
      value: "BYTES",
      env: "THAW_BODY_BUFFER_PROCESS_BYTES",
      default: "the config's bodyBufferProcessBytes, else 67108864 (64 MiB)",
      help: "all request bodies this activator keeps for a replay at once, every revision together",
    },
    {
      name: "--revisions",
      value: "JSON",
      env: "THAW_REVISIONS",
      default: "[]",
      help: 'revisions and their pods: [{"namespace","name","endpoints":["host:port"]}]',
    },
    {
      name: "--revisions-file",
      value: "FILE",
      env: "THAW_REVISIONS_FILE",
      help: "the same JSON from a file",
    },
    {
      name: "--config",
      value: "FILE",
      env: "THAW_CONFIG",
      help: "thaw.config.yaml: every service is a revision; kubernetes: services' pods from EndpointSlices",
    },
    {
      name: "--activator-service",
      value: "NAME[:PORT]",
      env: "THAW_ACTIVATOR_SERVICE",
      help: "the activators' own Service: capacity is split among its replicas (needs POD_IP)",
    },
    {
      name: "--autoscaler-service",
      value: "NAME[:PORT]",
      env: "THAW_AUTOSCALER_SERVICE",
      help: "the autoscaler's Service: stats go to every pod it lists (replaces --autoscaler)",
    },
    {
      name: "--passthrough-lb",
      env: "THAW_PASSTHROUGH_LB",
      default: "false",
      help: "passthrough load balancing for every revision (Knative's network-wide flag)",
    },
  ],
  env: [
    { name: "POD_NAMESPACE", default: "default", help: "namespace of the two Services above" },
    { name: "POD_IP", help: "this replica's IP, its place among the activators" },
    { name: "POD_NAME", help: "pod_name of the stats when THAW_POD_NAME is unset" },
    ...TRACING_ENV_VARS,
  ],
};
