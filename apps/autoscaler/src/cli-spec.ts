/** `thaw-autoscaler`'s command line: every flag, the variable it overrides and its default (`--help`). */
import type { Command } from "@thaw/command-line";

/** The table `thaw-autoscaler` reads its flags from and prints with `--help`. */
export const AUTOSCALER_CLI: Command = {
  name: "thaw-autoscaler",
  summary:
    "the autoscaler as its own process: reads thaw.config.yaml, scales each service through its scaler (kubernetes, webhook or local processes), takes stats from activators and queue-proxies and publishes scale events",
  flags: [
    {
      name: "--config",
      value: "FILE",
      env: "THAW_CONFIG",
      default: "thaw.config.yaml",
      help: "the services to scale",
    },
    {
      name: "--listen",
      value: "HOST:PORT",
      env: "THAW_AUTOSCALER_LISTEN",
      default: "0.0.0.0:8080",
      help: "stats (websocket, POST /v1/stats), /v1/scale-events and the dashboard",
    },
  ],
  env: [
    { name: "THAW_AUTOSCALER_TOKEN", help: "bearer token for its endpoints (default: the config's token)" },
    {
      name: "THAW_SCALE_WEBHOOK_SECRET",
      help: "signs webhook scale calls and checks POST /v1/scale (32+ characters)",
    },
    {
      name: "THAW_LEADER_ELECTION",
      default: "on",
      help: "on or off: one replica at a time scales Deployments",
    },
    {
      name: "THAW_LEASE_NAME",
      default: "thaw-autoscaler",
      help: "the Lease the replicas elect a leader with",
    },
    { name: "POD_NAMESPACE", default: "default", help: "namespace of the Lease" },
    { name: "POD_NAME", default: "the host name", help: "this replica's name in the Lease" },
    { name: "KUBECONFIG", default: "~/.kube/config, else the pod's ServiceAccount", help: "the API server" },
  ],
};
