import { DEFAULT_LEASE_NAME } from "@thaw/autoscaler-service/leader-lease";
import { fieldEnv, valueEnv } from "./env.js";
import { CONFIG_PATH, imageOf, type RenderOptions, TOKEN_SECRET } from "./options.js";

/**
 * The one place that says how each platform component is started in the cluster: image, args, env, port,
 * probes and grace period. Flags and variables are the ones each bin reads (apps/autoscaler/src/main.ts,
 * apps/activator/src/node/config.ts, apps/ingress-hook/src/node/cli.ts); keep them in step with those files.
 */
export interface ComponentSpec {
  /** Deployment, Service and ServiceAccount name. */
  name: string;
  image: string;
  args: string[];
  env: Record<string, unknown>[];
  port: number;
  replicas: number;
  readinessProbe: Record<string, unknown>;
  livenessProbe: Record<string, unknown>;
  terminationGracePeriodSeconds: number;
  resources: { requests: Record<string, string>; limits: Record<string, string> };
}

/** Service port of the autoscaler (stats websocket, POST /v1/stats, /v1/scale-events, /healthz). */
export const AUTOSCALER_PORT = 8080;
/** Service port of the activator (Knative's 8012). */
export const ACTIVATOR_PORT = 8012;
/** Service port of the ingress hook. */
export const HOOK_PORT = 8090;

/** The activator's drain: Knative's 45 s of failing probes, then up to 555 s for requests in flight. */
const ACTIVATOR_DRAIN_DELAY_MS = 45_000;
const ACTIVATOR_DRAIN_TIMEOUT_MS = 555_000;
/** The hook's longest hold of a cold request (its `--timeout-ms`). */
const HOOK_TIMEOUT_MS = 60_000;

function secretEnv(name: string, key: string, optional = false): Record<string, unknown> {
  return {
    name,
    valueFrom: { secretKeyRef: { name: TOKEN_SECRET, key, ...(optional ? { optional } : {}) } },
  };
}

/** POD_NAME and POD_NAMESPACE from the downward API: the autoscaler's Lease identity and namespace. */
const POD_ENV = [fieldEnv("POD_NAME", "metadata.name"), fieldEnv("POD_NAMESPACE", "metadata.namespace")];

function httpProbe(path: string, port: number, extra: Record<string, number>): Record<string, unknown> {
  return { httpGet: { path, port }, ...extra };
}

/** The in-cluster URL of a platform Service. */
export function serviceUrl(options: RenderOptions, scheme: string, name: string, port: number): string {
  return `${scheme}://${name}.${options.systemNamespace}.svc.cluster.local:${port}`;
}

/** The autoscaler, the activator and the hook, in that order. */
export function platformComponents(options: RenderOptions): ComponentSpec[] {
  return [
    {
      name: "thaw-autoscaler",
      image: imageOf(options, "autoscaler"),
      args: ["--config", CONFIG_PATH, "--listen", `0.0.0.0:${AUTOSCALER_PORT}`],
      // Replicas elect a leader on a Lease in their own namespace; only the holder writes scale.
      env: [
        secretEnv("THAW_AUTOSCALER_TOKEN", "token"),
        valueEnv("THAW_LEADER_ELECTION", "on"),
        valueEnv("THAW_LEASE_NAME", DEFAULT_LEASE_NAME),
        ...POD_ENV,
      ],
      port: AUTOSCALER_PORT,
      replicas: 2,
      readinessProbe: httpProbe("/healthz", AUTOSCALER_PORT, { periodSeconds: 5 }),
      livenessProbe: httpProbe("/healthz", AUTOSCALER_PORT, { periodSeconds: 10, failureThreshold: 6 }),
      terminationGracePeriodSeconds: 30,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "1", memory: "512Mi" } },
    },
    {
      name: "thaw-activator",
      image: imageOf(options, "activator"),
      args: [
        "--config",
        CONFIG_PATH,
        "--port",
        String(ACTIVATOR_PORT),
        "--drain-delay-ms",
        String(ACTIVATOR_DRAIN_DELAY_MS),
        "--drain-timeout-ms",
        String(ACTIVATOR_DRAIN_TIMEOUT_MS),
      ],
      // Its peers (subsetting) and every autoscaler replica (stats reach the Lease holder) come from the
      // EndpointSlices of these two Services in POD_NAMESPACE; POD_IP is this replica's place among peers.
      env: [
        secretEnv("THAW_ACTIVATOR_TOKEN", "token"),
        valueEnv("THAW_ACTIVATOR_SERVICE", "thaw-activator:http"),
        valueEnv("THAW_AUTOSCALER_SERVICE", "thaw-autoscaler:http"),
        ...POD_ENV,
        fieldEnv("POD_IP", "status.podIP"),
      ],
      port: ACTIVATOR_PORT,
      replicas: 2,
      // Knative's activator probes (knative-spec.md a.3 P5); kubelet's kube-probe/ agent gets the health answer.
      readinessProbe: httpProbe("/", ACTIVATOR_PORT, { periodSeconds: 5, failureThreshold: 5 }),
      livenessProbe: httpProbe("/", ACTIVATOR_PORT, {
        initialDelaySeconds: 15,
        periodSeconds: 10,
        failureThreshold: 12,
      }),
      // Knative's 600 s: the drain delay plus the longest wait for requests in flight.
      terminationGracePeriodSeconds: (ACTIVATOR_DRAIN_DELAY_MS + ACTIVATOR_DRAIN_TIMEOUT_MS) / 1000,
      resources: { requests: { cpu: "300m", memory: "256Mi" }, limits: { cpu: "2", memory: "1Gi" } },
    },
    {
      name: "thaw-ingress-hook",
      image: imageOf(options, "ingress-hook"),
      args: [
        "--listen",
        `0.0.0.0:${HOOK_PORT}`,
        "--activator",
        serviceUrl(options, "http", "thaw-activator", ACTIVATOR_PORT),
        "--config",
        CONFIG_PATH,
        "--timeout-ms",
        String(HOOK_TIMEOUT_MS),
        // ingress-nginx cannot strip request headers without snippets, so a client's Knative-internal
        // header is refused at the hook instead of reaching a queue-proxy.
        "--reject-internal-headers",
      ],
      env: [secretEnv("THAW_ACTIVATOR_TOKEN", "token"), secretEnv("THAW_ROUTE_TOKEN", "route-token", true)],
      port: HOOK_PORT,
      replicas: 2,
      readinessProbe: httpProbe("/healthz", HOOK_PORT, { periodSeconds: 5 }),
      livenessProbe: httpProbe("/healthz", HOOK_PORT, { periodSeconds: 10, failureThreshold: 6 }),
      // Held cold requests finish within --timeout-ms.
      terminationGracePeriodSeconds: HOOK_TIMEOUT_MS / 1000 + 15,
      resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "1", memory: "256Mi" } },
    },
  ];
}
