import type { Clock } from "@thaw/clock";
import { Header, Path, ProbeValue, passthroughLbHeaders, type RevisionId, UserAgent } from "@thaw/protocol";

/** The part of Web `fetch` the prober uses; pass `globalThis.fetch` or a test double. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** What one probe of one destination found. */
export interface ProbeOutcome {
  /** 200 with body exactly `queue`. */
  healthy: boolean;
  /** An answer came that a mesh sidecar would not give (anything but a 502/503, or success). */
  notMesh: boolean;
  /** Why it was not healthy. */
  error?: Error;
}

/** Knative's mesh compatibility mode (d.3); `auto` probes every destination. */
export type MeshMode = "auto" | "enabled" | "disabled";

/** The headers of the activator's backend probe (P2); with `passthroughLb`, also its Host and K-Passthrough-Lb. */
export function backendProbeHeaders(passthroughLb?: RevisionId): Headers {
  const h = new Headers({
    [Header.networkProbe]: ProbeValue.queue,
    [Header.userAgent]: UserAgent.activatorProbe,
  });
  return passthroughLb ? passthroughLbHeaders(h, passthroughLb) : h;
}

/**
 * Probes one queue-proxy the way Knative's activator does (d.3): `GET /healthz` with
 * `K-Network-Probe: queue` and the activator's user agent, plus the passthrough-LB Host and header when
 * `passthroughLb` names the revision. Aborting `signal` fails the probe.
 */
export async function probeDestination(
  fetch: FetchLike,
  dest: string,
  signal: AbortSignal,
  scheme = "http",
  passthroughLb?: RevisionId,
): Promise<ProbeOutcome> {
  let res: Response;
  try {
    res = await fetch(`${scheme}://${dest}${Path.healthz}`, {
      method: "GET",
      headers: backendProbeHeaders(passthroughLb),
      signal,
    });
  } catch (err) {
    return { healthy: false, notMesh: false, error: asError(err) };
  }
  let body: string;
  try {
    body = await res.text();
  } catch (err) {
    return { healthy: false, notMesh: false, error: asError(err) };
  }
  const notMesh = res.status !== 502 && res.status !== 503;
  if (res.status !== 200) {
    return { healthy: false, notMesh, error: new Error(`probe of ${dest}: unexpected status ${res.status}`) };
  }
  if (body !== ProbeValue.queue) {
    return {
      healthy: false,
      notMesh,
      error: new Error(`probe of ${dest}: unexpected body ${JSON.stringify(body)}`),
    };
  }
  return { healthy: true, notMesh: true };
}

/** Input of one probing round. */
export interface ProbeRoundInput {
  /** Endpoints Kubernetes calls ready. */
  ready: readonly string[];
  /** Endpoints not ready yet (or any more). */
  notReady: readonly string[];
  /** The healthy set before this round. */
  healthy: ReadonlySet<string>;
  meshMode: MeshMode;
  /** Use not-ready endpoints that pass the probe (off with exec or startup probes). */
  probeOptimisation: boolean;
  /** Deadline for the whole round. */
  timeoutMs: number;
}

/** Result of one probing round. */
export interface ProbeRoundResult {
  healthy: Set<string>;
  /** The healthy set did not change. */
  noop: boolean;
  /** Some probe got an answer no mesh would give. */
  notMesh: boolean;
  /** The first probe failure, if any (the round still reports what did pass). */
  error: Error | undefined;
  /** Probes sent. */
  probes: number;
}

/**
 * One round of Knative's backend probing (d.3): keep known-healthy destinations that still exist,
 * trust ready ones without probing unless the mesh mode is `auto`, probe the rest in parallel under one
 * deadline, and admit not-ready ones that pass only with the probe optimisation.
 */
export async function probeRound(
  input: ProbeRoundInput,
  probe: (dest: string, signal: AbortSignal) => Promise<ProbeOutcome>,
  clock: Clock,
): Promise<ProbeRoundResult> {
  const ready = new Set(input.ready);
  const dests = new Set([...input.ready, ...input.notReady]);
  if (sameSet(input.healthy, dests)) {
    return { healthy: new Set(dests), noop: true, notMesh: false, error: undefined, probes: 0 };
  }
  const healthy = new Set([...input.healthy].filter((d) => dests.has(d)));
  const toProbe: string[] = [];
  for (const d of dests) {
    if (healthy.has(d)) continue;
    if (input.meshMode !== "auto" && ready.has(d)) healthy.add(d);
    else toProbe.push(d);
  }
  let notMesh = false;
  let error: Error | undefined;
  if (toProbe.length > 0) {
    const ac = new AbortController();
    const timer = clock.setTimeout(() => ac.abort(new Error("probe round timed out")), input.timeoutMs);
    try {
      const outcomes = await Promise.all(toProbe.map((d) => probe(d, ac.signal)));
      outcomes.forEach((o, i) => {
        const d = toProbe[i] as string;
        if (o.healthy && (ready.has(d) || input.probeOptimisation)) healthy.add(d);
        if (o.notMesh) notMesh = true;
        if (o.error && !error) error = o.error;
      });
    } finally {
      clock.clearTimeout(timer);
    }
  }
  return { healthy, noop: sameSet(healthy, input.healthy), notMesh, error, probes: toProbe.length };
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
