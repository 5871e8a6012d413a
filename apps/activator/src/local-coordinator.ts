import { type FetchLike, SingleFlightActivator, Throttler } from "@thaw/activation";
import type { Clock } from "@thaw/clock";
import { LocalGate } from "./local-gate.js";
import type {
  Coordinator,
  EndpointSource,
  Logger,
  QueueDepth,
  RevisionConfig,
  RevisionGate,
  RevisionKey,
  ScalerPoke,
} from "./ports.js";
import type { Telemetry } from "./telemetry.js";

/** What the in-process coordinator composes. */
export interface LocalCoordinatorOptions {
  endpoints: EndpointSource;
  clock: Clock;
  /** Used for the queue probes (`K-Network-Probe: queue`). */
  fetch: FetchLike;
  /** Starts a pod when a revision is found cold (optional: the stats poke also reaches the autoscaler). */
  scaler?: ScalerPoke;
  telemetry?: Telemetry;
  logger?: Logger;
  /** Probe period while some pod is not healthy (Knative 200 ms). */
  probeIntervalMs?: number;
  /** Probe period while a revision is waking up (default 15 ms: the cold-start latency target). */
  activatingIntervalMs?: number;
  /** Per-round probe deadline (Knative 300 ms). */
  probeTimeoutMs?: number;
  /**
   * Passthrough load balancing (knative-spec d.1, d.3): probes carry `Host: <rev>-private.<ns>` and
   * `K-Passthrough-Lb: true`, and the ClusterIP fallback is off. The request path adds the same headers
   * (`ActivatorDeps.passthroughLb`).
   */
  passthroughLb?: boolean;
}

const idOf = (k: RevisionKey) => `${k.namespace}/${k.name}`;

/**
 * The Node activator's coordinator: per revision, @thaw/activation's throttler, backend prober and
 * single-flight activation, fed by an endpoint source. Nothing here decides capacity itself.
 */
export class LocalCoordinator implements Coordinator {
  readonly #o: LocalCoordinatorOptions;
  readonly #throttler = new Throttler();
  readonly #activation: SingleFlightActivator;
  readonly #gates = new Map<string, LocalGate>();
  #listeners: ((k: RevisionKey, e: string[]) => void)[] = [];
  #activators: { sortedIps: string[]; self: string } | undefined;

  constructor(opts: LocalCoordinatorOptions) {
    this.#o = opts;
    // The gate pokes once per cold period itself (proxied requests wake a revision too), so the
    // single flight only gathers the /v1/activate waiters.
    this.#activation = new SingleFlightActivator({ clock: opts.clock, poke: () => {} });
  }

  gate(key: RevisionKey, config: RevisionConfig): RevisionGate {
    const id = idOf(key);
    let g = this.#gates.get(id);
    const rt = this.#throttler.upsert(id, config.containerConcurrency, config.maxQueue);
    if (!g) {
      g = new LocalGate(key, rt, this.#o, this.#activation, (eps) => {
        for (const l of this.#listeners) l(key, eps);
      });
      this.#gates.set(id, g);
    } else if (g.rt !== rt) g.attach(rt);
    if (this.#activators) rt.updateActivatorIps(this.#activators.sortedIps, this.#activators.self);
    g.maxQueue = config.maxQueue;
    return g;
  }

  /** Requests of `key` waiting for a pod with room now (0 when the revision has no gate yet): the page's queue depth. */
  queueDepth(key: RevisionKey): number {
    return this.#gates.get(idOf(key))?.rt.waiting ?? 0;
  }

  /**
   * The activator replicas now (their IPs) and this one's: each revision's capacity and pods are split
   * among them (Knative's subsetting, d.2). Unknown self (not in the list) = this one takes everything.
   */
  setActivators(ips: readonly string[], self: string): void {
    const sortedIps = [...new Set(ips)].sort();
    this.#activators = { sortedIps, self };
    for (const g of this.#gates.values()) g.rt.updateActivatorIps(sortedIps, self);
  }

  onEndpoints(listener: (k: RevisionKey, e: string[]) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** Proxied requests waiting in the throttler plus `/v1/activate` callers waiting for a first pod. */
  *queueDepths(): Iterable<QueueDepth> {
    for (const [id, g] of this.#gates) {
      const slash = id.indexOf("/");
      const waiting = g.rt.waiting + this.#activation.waiting(id);
      yield { namespace: id.slice(0, slash), name: id.slice(slash + 1), waiting };
    }
  }

  close(): void {
    for (const g of this.#gates.values()) g.close();
    this.#gates.clear();
  }
}
