import { applyRevisionDefaults, type Probe, queueProxyProbeEnv } from "@thaw/readiness";

/** The revision facts a local pod is built from (a thaw.config.yaml service with `run`). */
export interface LocalServiceSpec {
  namespace: string;
  name: string;
  command: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string;
  /** Variable that tells the app its port (default PORT). */
  portEnv: string;
  /** The container port's name (Knative): `h2c` = the app speaks HTTP/2 cleartext; default `http1`. */
  portName?: "http1" | "h2c";
  containerConcurrency: number;
  timeoutSeconds: number;
  responseStartTimeoutSeconds?: number;
  idleTimeoutSeconds?: number;
  /** The user's Kubernetes readinessProbe, already validated; none = Knative's default TCP probe. */
  readinessProbe?: Probe;
  /** Queue-proxy drain quiet period (Knative: 30 s). */
  drainQuietPeriodMs: number;
  /**
   * A fixed port for the queue-proxy's serving port instead of one the kernel picks, for a pod that must be
   * reachable at a known address (an edge gateway in front, a webhook origin's `endpoints`). At most one
   * pod of such a service runs at a time.
   */
  servingPort?: number;
  /**
   * The app's port when the app cannot be told one (a container that already exists listens where it was
   * created to): the queue-proxy forwards there instead of to a picked port. At most one pod then runs.
   */
  userPort?: number;
  /**
   * Pods numbered 1, 2, ... (the lowest number no pod holds, draining ones included), for apps that are
   * replicas of one thing (a container and the copies made of it): the number goes to the app in `env`,
   * and `userPort(n)` fixes that pod's app port (undefined: one is picked).
   */
  replicas?: { env: string; userPort: (n: number) => number | undefined };
  /**
   * A readiness check the queue-proxy cannot see (a container's health check), run like kubelet runs an
   * exec probe: a pod is ready once it passed too, and until then nobody but the scaler learns its address.
   * Given the pod's replica number (1 when the spec does not number them).
   */
  readinessGate?: (replica: number) => Promise<boolean>;
  /**
   * A Knative-compatible queue-proxy of the user's choosing (Knative's own binary included), started with
   * Knative's environment only. It binds the admin and metrics ports it was built with (Knative's 8022 and
   * 9090), so at most one pod of it runs per machine. Unset: Thaw's `thaw-queue-proxy`, every port movable.
   */
  queueProxy?: KnativeQueueProxy;
  /** Thaw's queue-proxy run by another process (a container beside the app's); unset: spawned here. */
  queueProxyRunner?: QueueProxyRunner;
}

/**
 * Thaw's queue-proxy run by another process instead of spawned here (a container's, see
 * scalers/container/sidecar-main.ts): its argv and env. It is given the queue-proxy's environment as one
 * JSON object in QUEUE_PROXY_RUNNER_ENV.env (runner-env.ts), the drain's bound in seconds in `.stopTimeout`, and the
 * pod's replica number like the app; SIGTERM to it must drain the queue-proxy before it exits.
 */
export interface QueueProxyRunner {
  command: readonly string[];
  env: Readonly<Record<string, string>>;
}

/** A queue-proxy binary that reads only Knative's env: its argv and the fixed ports it binds. */
export interface KnativeQueueProxy {
  command: readonly string[];
  adminPort: number;
  metricsPort: number;
}

/** Knative fixes the drain quiet period of its queue-proxy at 30 s; no env var moves it. */
export const KNATIVE_DRAIN_QUIET_PERIOD_MS = 30_000;

/** The ports of one local pod; the scaler picks them all before the pod starts, so nothing is learned later. */
export interface PodPorts {
  user: number;
  serving: number;
  servingTls: number;
  admin: number;
  metrics: number;
}

/**
 * The queue-proxy's environment as Knative's reconciler writes it (c.2), with the readiness probe defaulted
 * and rewritten by @thaw/readiness (b.1, b.3), and the ports the scaler picked. Knative's own variables carry
 * the serving, TLS and user ports; for `thaw-queue-proxy` (no `spec.queueProxy`) the THAW_* variables also
 * move the admin and metrics ports Knative fixes, so many pods share one machine.
 */
export function queueProxyEnv(
  spec: LocalServiceSpec,
  pod: string,
  ports: PodPorts,
): { ok: true; env: Record<string, string> } | { ok: false; error: string } {
  const userPort = ports.user;
  const revision = applyRevisionDefaults({
    containers: [
      {
        ports: [{ containerPort: userPort }],
        ...(spec.readinessProbe ? { readinessProbe: structuredClone(spec.readinessProbe) } : {}),
      },
    ],
    containerConcurrency: spec.containerConcurrency,
    timeoutSeconds: spec.timeoutSeconds,
    ...(spec.responseStartTimeoutSeconds !== undefined
      ? { responseStartTimeoutSeconds: spec.responseStartTimeoutSeconds }
      : {}),
    ...(spec.idleTimeoutSeconds !== undefined ? { idleTimeoutSeconds: spec.idleTimeoutSeconds } : {}),
  });
  const serving = revision.containers?.[0];
  if (!serving) return { ok: false, error: "no serving container after defaulting" };
  const probe = queueProxyProbeEnv({ serving, containerConcurrency: spec.containerConcurrency });
  if (!probe.ok) return { ok: false, error: probe.issues.map((i) => `${i.path}: ${i.message}`).join("; ") };
  return {
    ok: true,
    env: {
      ...probe.value,
      QUEUE_SERVING_PORT: String(ports.serving),
      QUEUE_SERVING_TLS_PORT: String(ports.servingTls),
      USER_PORT: String(userPort),
      REVISION_TIMEOUT_SECONDS: String(revision.timeoutSeconds ?? spec.timeoutSeconds),
      REVISION_RESPONSE_START_TIMEOUT_SECONDS: String(revision.responseStartTimeoutSeconds ?? 0),
      REVISION_IDLE_TIMEOUT_SECONDS: String(revision.idleTimeoutSeconds ?? 0),
      SERVING_LOGGING_CONFIG: "",
      SERVING_LOGGING_LEVEL: "",
      SERVING_NAMESPACE: spec.namespace,
      SERVING_CONFIGURATION: spec.name,
      SERVING_REVISION: spec.name,
      SERVING_SERVICE: spec.name,
      SERVING_POD: pod,
      SERVING_POD_IP: "127.0.0.1",
      ...(spec.queueProxy ? {} : thawKnobs(spec, ports)),
    },
  };
}

/**
 * Thaw's queue-proxy knobs: the picked admin and metrics ports, loopback only, no Prometheus port per pod,
 * and the app's port name when it is h2c.
 */
function thawKnobs(spec: LocalServiceSpec, ports: PodPorts): Record<string, string> {
  return {
    THAW_ADMIN_PORT: String(ports.admin),
    THAW_METRICS_PORT: String(ports.metrics),
    THAW_USER_METRICS_PORT: "0",
    THAW_BIND_HOST: "127.0.0.1",
    THAW_DRAIN_QUIET_PERIOD_MS: String(spec.drainQuietPeriodMs),
    ...(spec.portName === "h2c" ? { THAW_USER_PORT_NAME: "h2c" } : {}),
  };
}

/** The user app's environment: the caller's, the service's `run.env`, its port and Knative's K_* names. */
export function userAppEnv(
  spec: LocalServiceSpec,
  pod: string,
  userPort: number,
  base: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return {
    ...base,
    ...spec.env,
    [spec.portEnv]: String(userPort),
    K_SERVICE: spec.name,
    K_CONFIGURATION: spec.name,
    K_REVISION: spec.name,
    HOSTNAME: pod,
  };
}
