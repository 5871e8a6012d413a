import type { ServiceConfig } from "@thaw/config";
import { parseDurationMs } from "@thaw/config";
import {
  applyRevisionDefaults,
  type Container,
  type Probe,
  queueProxyOwnProbe,
  queueProxyProbeEnv,
} from "@thaw/readiness";
import { fieldEnv, tcpPort, valueEnv } from "./env.js";
import { imageOf, type RenderOptions } from "./options.js";
import { restrictedContainer } from "./security.js";

/** Knative's fixed queue-proxy ports (knative-spec.md c.1). */
export const QUEUE_PORTS = { tls: 8112, admin: 8022, metrics: 9090, userMetrics: 9091 } as const;
/** Knative's queue-proxy drain quiet period; other values go to THAW_DRAIN_QUIET_PERIOD_MS. */
const KNATIVE_QUIET_PERIOD_MS = 30_000;

/** The serving container after Knative's revision defaulting, and what the queue-proxy derives from it. */
export interface QueueProxyParts {
  container: Record<string, unknown>;
  /** The defaulted serving container (its readinessProbe is what the queue-proxy runs). */
  serving: Container;
  queuePort: number;
}

/** The revision as the reconciler sees it: one serving container with the user port and probe, defaults applied. */
export function defaultedServing(service: ServiceConfig, probe: Probe | undefined): Container {
  const port = service.kubernetes?.containerPort ?? 8080;
  const revision = applyRevisionDefaults({
    containers: [
      { ports: [{ containerPort: port }], ...(probe ? { readinessProbe: structuredClone(probe) } : {}) },
    ],
    containerConcurrency: service.containerConcurrency,
    timeoutSeconds: service.timeoutSeconds,
  });
  const serving = revision.containers?.[0];
  if (!serving) throw new Error("revision defaulting returned no container");
  return serving;
}

/**
 * The queue-proxy sidecar exactly as Knative's reconciler shapes it: every variable of knative-spec.md c.2
 * (HEAD's list, plus the request-log, metrics-domain and profiling variables earlier releases set and our
 * queue-proxy ignores), ports 8012/8022/9090/9091/8112, and kubelet's readiness probe `GET :8012` with
 * `K-Network-Probe: queue` carrying the user probe's timing. The user probe goes, rewritten by
 * @thaw/readiness, into SERVING_READINESS_PROBE.
 */
export function queueProxyContainer(
  service: ServiceConfig,
  probe: Probe | undefined,
  options: RenderOptions,
  quietPeriod: string | number | undefined,
): QueueProxyParts {
  const serving = defaultedServing(service, probe);
  const probeEnv = queueProxyProbeEnv({ serving, containerConcurrency: service.containerConcurrency });
  // @thaw/config validated the probe with the same rules, so a failure here is a bug, not bad input.
  if (!probeEnv.ok) throw new Error(probeEnv.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
  const pe = probeEnv.value;
  const queuePort = Number(pe.QUEUE_SERVING_PORT);
  const name = service.name;
  const quietMs =
    quietPeriod === undefined
      ? KNATIVE_QUIET_PERIOD_MS
      : (parseDurationMs(quietPeriod) ?? KNATIVE_QUIET_PERIOD_MS);
  const env = [
    valueEnv("SERVING_NAMESPACE", service.namespace),
    valueEnv("SERVING_SERVICE", name),
    valueEnv("SERVING_CONFIGURATION", name),
    valueEnv("SERVING_REVISION", name),
    valueEnv("QUEUE_SERVING_PORT", String(queuePort)),
    valueEnv("QUEUE_SERVING_TLS_PORT", String(QUEUE_PORTS.tls)),
    valueEnv("CONTAINER_CONCURRENCY", String(service.containerConcurrency)),
    valueEnv("REVISION_TIMEOUT_SECONDS", String(service.timeoutSeconds)),
    valueEnv("REVISION_RESPONSE_START_TIMEOUT_SECONDS", String(service.responseStartTimeoutSeconds ?? 0)),
    valueEnv("REVISION_IDLE_TIMEOUT_SECONDS", String(service.idleTimeoutSeconds ?? 0)),
    fieldEnv("SERVING_POD", "metadata.name"),
    fieldEnv("SERVING_POD_IP", "status.podIP"),
    fieldEnv("HOST_IP", "status.hostIP"),
    valueEnv("SERVING_LOGGING_CONFIG", ""),
    valueEnv("SERVING_LOGGING_LEVEL", ""),
    valueEnv("SERVING_REQUEST_LOG_TEMPLATE", ""),
    valueEnv("SERVING_ENABLE_REQUEST_LOG", "false"),
    valueEnv("SERVING_ENABLE_PROBE_REQUEST_LOG", "false"),
    valueEnv("SERVING_REQUEST_METRICS_BACKEND", "prometheus"),
    valueEnv("USER_PORT", pe.USER_PORT as string),
    valueEnv("SYSTEM_NAMESPACE", options.systemNamespace),
    valueEnv("METRICS_DOMAIN", "knative.dev/internal/serving"),
    valueEnv("ENABLE_PROFILING", "false"),
    valueEnv("SERVING_READINESS_PROBE", pe.SERVING_READINESS_PROBE as string),
    valueEnv("ENABLE_MULTI_CONTAINER_PROBES", pe.ENABLE_MULTI_CONTAINER_PROBES as string),
    valueEnv("ENABLE_HTTP2_AUTO_DETECTION", "false"),
    valueEnv("ENABLE_HTTP_FULL_DUPLEX", "false"),
    valueEnv("OBSERVABILITY_CONFIG", "{}"),
    valueEnv("ROOT_CA", ""),
    ...(quietMs !== KNATIVE_QUIET_PERIOD_MS ? [valueEnv("THAW_DRAIN_QUIET_PERIOD_MS", String(quietMs))] : []),
    // Knative's port name h2c: HTTP/2 cleartext to the app (Thaw's queue-proxy reads it from here).
    ...(service.containerPortName === "h2c" ? [valueEnv("THAW_USER_PORT_NAME", "h2c")] : []),
  ];
  const res = service.kubernetes?.queueProxyResources;
  const container = {
    name: "queue-proxy",
    image: imageOf(options, "queue-proxy"),
    ports: [
      tcpPort("http-queueadm", QUEUE_PORTS.admin),
      tcpPort("http-autometric", QUEUE_PORTS.metrics),
      tcpPort("http-usermetric", QUEUE_PORTS.userMetrics),
      tcpPort("queue-port", queuePort),
      tcpPort("https-port", QUEUE_PORTS.tls),
    ],
    env,
    readinessProbe: queueProxyOwnProbe(serving.readinessProbe, queuePort),
    resources: resourcesOf(res, {
      requests: { cpu: "25m", memory: "64Mi" },
      limits: { cpu: "1", memory: "256Mi" },
    }),
    securityContext: restrictedContainer(true),
  };
  return { container, serving, queuePort };
}

type Resources = NonNullable<NonNullable<ServiceConfig["kubernetes"]>["resources"]>;

/** Requests and limits: the config's values over the defaults, quantities as strings. */
export function resourcesOf(
  given: Resources | undefined,
  defaults: { requests: Record<string, string>; limits: Record<string, string> },
): { requests: Record<string, string>; limits: Record<string, string> } {
  const merge = (d: Record<string, string>, g: Record<string, string | number | undefined> | undefined) => {
    const out: Record<string, string> = { ...d };
    for (const [k, v] of Object.entries(g ?? {})) if (v !== undefined) out[k] = String(v);
    return out;
  };
  return {
    requests: merge(defaults.requests, given?.requests),
    limits: merge(defaults.limits, given?.limits),
  };
}
