import type { Container, Probe } from "./types.js";

/** The parts of a Knative `RevisionSpec` that defaulting touches; other fields pass through. */
export interface RevisionSpec {
  containers?: Container[];
  initContainers?: Container[];
  timeoutSeconds?: number;
  containerConcurrency?: number;
  responseStartTimeoutSeconds?: number;
  idleTimeoutSeconds?: number;
  [other: string]: unknown;
}

/** `config-defaults` values that defaulting reads; every field has Knative's default. */
export interface RevisionDefaultsConfig {
  /** `revision-timeout-seconds` (300). */
  revisionTimeoutSeconds?: number;
  /** `revision-response-start-timeout-seconds` (300). */
  revisionResponseStartTimeoutSeconds?: number;
  /** `revision-idle-timeout-seconds` (0). */
  revisionIdleTimeoutSeconds?: number;
  /** `container-concurrency` (0 = unlimited). */
  containerConcurrency?: number;
  /** Name given to unnamed containers (`user-container`). */
  userContainerName?: string;
  /** Name given to unnamed init containers (`init-container`). */
  initContainerName?: string;
}

/**
 * Applies Knative's revision defaulting (knative-spec.md b.1) and returns a new spec; the input is not
 * changed. Probes get a TCP handler on the user port when they have none, `successThreshold: 1`, and the
 * Kubernetes-style thresholds only when `periodSeconds` is non-zero (zero selects aggressive probing).
 */
export function applyRevisionDefaults(spec: RevisionSpec, config: RevisionDefaultsConfig = {}): RevisionSpec {
  const out: RevisionSpec = structuredClone(spec);
  const timeout = out.timeoutSeconds ? out.timeoutSeconds : (config.revisionTimeoutSeconds ?? 300);
  out.timeoutSeconds = timeout;
  if (out.containerConcurrency === undefined || out.containerConcurrency === null) {
    out.containerConcurrency = config.containerConcurrency ?? 0;
  }
  const responseStart = config.revisionResponseStartTimeoutSeconds ?? 300;
  if (!out.responseStartTimeoutSeconds && responseStart > 0 && responseStart < timeout) {
    out.responseStartTimeoutSeconds = responseStart;
  }
  const idle = config.revisionIdleTimeoutSeconds ?? 0;
  if (!out.idleTimeoutSeconds && idle > 0 && idle < timeout) out.idleTimeoutSeconds = idle;

  const containers = out.containers ?? [];
  const taken = new Set<string>();
  for (const c of [...containers, ...(out.initContainers ?? [])]) if (c.name) taken.add(c.name);
  nameContainers(containers, taken, config.userContainerName ?? "user-container");
  if (out.initContainers)
    nameContainers(out.initContainers, taken, config.initContainerName ?? "init-container");

  for (const c of containers) {
    // Only the container that can receive traffic gets a default probe: the sole one, or one with ports.
    if (containers.length === 1 || (c.ports?.length ?? 0) > 0) {
      const probe: Probe = c.readinessProbe ?? {};
      if (!probe.tcpSocket && !probe.httpGet && !probe.exec && !probe.grpc) probe.tcpSocket = {};
      c.readinessProbe = probe;
    }
    if (c.readinessProbe) defaultReadinessTiming(c.readinessProbe);
    for (const p of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
      if (p?.grpc && p.grpc.service === undefined) p.grpc.service = "";
    }
  }
  return out;
}

function defaultReadinessTiming(p: Probe): void {
  if (!p.successThreshold) p.successThreshold = 1;
  // periodSeconds 0 means aggressive probing: its timing is fixed by the queue-proxy, so nothing more.
  if (p.periodSeconds) {
    if (!p.failureThreshold) p.failureThreshold = 3;
    if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  }
}

/** Names unnamed containers; with several containers a numeric suffix keeps names unique. */
function nameContainers(containers: Container[], taken: Set<string>, base: string): void {
  let suffix = 0;
  for (const c of containers) {
    if (c.name) continue;
    let name = base;
    if (containers.length > 1 || taken.has(name)) {
      do name = `${base}-${suffix++}`;
      while (taken.has(name));
    }
    taken.add(name);
    c.name = name;
  }
}
