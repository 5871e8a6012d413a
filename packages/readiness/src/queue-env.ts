import { encodeProbeEnv } from "./encode.js";
import {
  type Container,
  type IntOrString,
  type Issue,
  type Probe,
  type Result,
  TIMING_FIELDS,
} from "./types.js";

/** The port the queue-proxy serves HTTP/1 traffic on. */
export const QUEUE_HTTP_PORT = 8012;
/** The port the queue-proxy serves h2c traffic on (user port named `h2c`). */
export const QUEUE_H2C_PORT = 8013;
/** The user port when the serving container declares none. */
export const DEFAULT_USER_PORT = 8080;
/** Where the queue-proxy reaches the user container: always loopback inside the pod. */
export const PROBE_HOST = "127.0.0.1";

/** What the reconciler needs to build the queue-proxy's probe environment. */
export interface QueueProxyProbeInput {
  /** The serving container, after revision defaulting. */
  serving: Container;
  /** Other containers of the pod; probed only with multi-container probing. */
  sidecars?: Container[];
  /** Knative's `multi-container-probing` feature. */
  multiContainerProbing?: boolean;
  /** When given, `CONTAINER_CONCURRENCY` is included. */
  containerConcurrency?: number;
}

/** The user port: the serving container's first `containerPort`, else 8080. */
export function userPortOf(container: Container): number {
  return container.ports?.[0]?.containerPort || DEFAULT_USER_PORT;
}

/** The queue-proxy port that fronts the user port: 8013 when the user port is named `h2c`, else 8012. */
export function queueServingPortOf(container: Container): number {
  return container.ports?.[0]?.name === "h2c" ? QUEUE_H2C_PORT : QUEUE_HTTP_PORT;
}

/** A probe port that names a number (an int, or digits in a string) and is not zero; else undefined. */
export function numericPort(port: IntOrString | undefined): number | undefined {
  if (typeof port === "number") return port !== 0 ? port : undefined;
  if (typeof port === "string" && /^[+-]?\d+$/.test(port)) {
    const n = Number.parseInt(port, 10);
    return n !== 0 ? n : undefined;
  }
  return undefined;
}

/**
 * Rewrites a user readiness probe into what the queue-proxy runs (knative-spec.md b.3): loopback host,
 * numeric port (the probe's own numeric port, else `fallbackPort`), HTTP scheme by default, `exec` turned
 * into a TCP check of the port, and at least 1 s of timeout when `periodSeconds` is set.
 * Returns undefined when there is no handler or no usable port (`fallbackPort` undefined).
 */
export function rewriteForQueueProxy(probe: Probe, fallbackPort: number | undefined): Probe | undefined {
  const out: Probe = structuredClone(probe);
  if (out.httpGet) {
    const port = numericPort(out.httpGet.port) ?? fallbackPort;
    if (port === undefined) return undefined;
    out.httpGet = { ...out.httpGet, host: PROBE_HOST, port, scheme: out.httpGet.scheme || "HTTP" };
  } else if (out.tcpSocket) {
    const port = numericPort(out.tcpSocket.port) ?? fallbackPort;
    if (port === undefined) return undefined;
    out.tcpSocket = { host: PROBE_HOST, port };
  } else if (out.grpc) {
    const port = out.grpc.port && out.grpc.port > 0 ? out.grpc.port : fallbackPort;
    if (port === undefined) return undefined;
    out.grpc = { ...out.grpc, port };
  } else if (out.exec) {
    if (fallbackPort === undefined) return undefined;
    delete out.exec;
    out.tcpSocket = { host: PROBE_HOST, port: fallbackPort };
  } else {
    return undefined;
  }
  if ((out.periodSeconds ?? 0) > 0 && (out.timeoutSeconds ?? 0) < 1) out.timeoutSeconds = 1;
  return out;
}

/**
 * The queue-proxy environment the reconciler derives from the serving container's readiness probe:
 * `SERVING_READINESS_PROBE` (Go-encoded; an array with multi-container probing), `ENABLE_MULTI_CONTAINER_PROBES`,
 * `USER_PORT`, `QUEUE_SERVING_PORT` and, when given, `CONTAINER_CONCURRENCY`.
 */
export function queueProxyProbeEnv(input: QueueProxyProbeInput): Result<Record<string, string>> {
  const userPort = userPortOf(input.serving);
  const issues: Issue[] = [];
  const probe = input.serving.readinessProbe;
  if (!probe) {
    return {
      ok: false,
      issues: [
        {
          path: "readinessProbe",
          message: "the serving container has no readiness probe; apply revision defaults first",
        },
      ],
    };
  }
  const serving = rewriteForQueueProxy(probe, userPort);
  if (!serving)
    return { ok: false, issues: [{ path: "readinessProbe", message: "expected exactly one handler" }] };
  const probes: Probe[] = [serving];
  if (input.multiContainerProbing) {
    (input.sidecars ?? []).forEach((sidecar, i) => {
      const p = sidecar.readinessProbe;
      // kubelet runs exec probes in the sidecar itself; the queue-proxy has nothing to do for them.
      if (!p || p.exec) return;
      const rewritten = rewriteForQueueProxy(p, undefined);
      if (rewritten) probes.push(rewritten);
      else
        issues.push({
          path: `sidecars[${i}].readinessProbe`,
          message: `sidecar ${sidecar.name ?? i} needs a readiness probe with a non-zero numeric port`,
        });
    });
  }
  if (issues.length > 0) return { ok: false, issues };
  const encoded = encodeProbeEnv(input.multiContainerProbing ? probes : serving);
  if (!encoded.ok) return encoded;
  const env: Record<string, string> = {
    SERVING_READINESS_PROBE: encoded.value,
    ENABLE_MULTI_CONTAINER_PROBES: String(input.multiContainerProbing === true),
    USER_PORT: String(userPort),
    QUEUE_SERVING_PORT: String(queueServingPortOf(input.serving)),
  };
  if (input.containerConcurrency !== undefined)
    env.CONTAINER_CONCURRENCY = String(input.containerConcurrency);
  return { ok: true, value: env };
}

/**
 * The queue-proxy container's own readinessProbe, which kubelet runs: the user probe's timing fields
 * (zero stays unset) with the handler replaced by `GET :<queuePort>` carrying `K-Network-Probe: queue`.
 */
export function queueProxyOwnProbe(userProbe: Probe | undefined, queuePort: number = QUEUE_HTTP_PORT): Probe {
  const own: Probe = {
    httpGet: { port: queuePort, httpHeaders: [{ name: "K-Network-Probe", value: "queue" }] },
  };
  if (!userProbe) return own;
  for (const f of TIMING_FIELDS) {
    if (userProbe[f]) own[f] = userProbe[f];
  }
  if (userProbe.terminationGracePeriodSeconds !== undefined) {
    own.terminationGracePeriodSeconds = userProbe.terminationGracePeriodSeconds;
  }
  return own;
}
