import {
  BackendProber,
  type FetchLike,
  probeDestination,
  type RevisionThrottler,
  SingleFlightActivator,
  Throttler,
} from "@thaw/activation";
import type { Clock, TimerHandle } from "@thaw/clock";
import type {
  ActivationOutcome,
  ColdStartPhases,
  Coordinator,
  EndpointSource,
  Lease,
  Logger,
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
    } else if (g.rt !== rt) {
      g.rt = rt;
      rt.updateDestinations(g.readyEndpoints());
    }
    return g;
  }

  onEndpoints(listener: (k: RevisionKey, e: string[]) => void): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  close(): void {
    for (const g of this.#gates.values()) g.close();
    this.#gates.clear();
  }
}

/** One revision's coordination in process. */
class LocalGate implements RevisionGate {
  readonly #key: RevisionKey;
  readonly #id: string;
  readonly #o: LocalCoordinatorOptions;
  readonly #activation: SingleFlightActivator;
  readonly #prober: BackendProber;
  readonly #unsubscribe: () => void;
  readonly #notify: (eps: string[]) => void;
  #healthy: string[] = [];
  #notified = "";
  /** Pods that failed a forward: kept out until a direct probe passes again. */
  #suspects = new Map<string, TimerHandle | undefined>();
  #coldSince: number | undefined;
  #listedAt: number | undefined;
  #last: ColdStartPhases | undefined;
  #recent: number[] = [];
  rt: RevisionThrottler;

  constructor(
    key: RevisionKey,
    rt: RevisionThrottler,
    o: LocalCoordinatorOptions,
    activation: SingleFlightActivator,
    notify: (eps: string[]) => void,
  ) {
    this.#key = key;
    this.#id = idOf(key);
    this.rt = rt;
    this.#o = o;
    this.#activation = activation;
    this.#notify = notify;
    this.#prober = new BackendProber({
      fetch: o.fetch,
      clock: o.clock,
      intervalMs: o.probeIntervalMs ?? 200,
      activatingIntervalMs: o.activatingIntervalMs ?? 15,
      timeoutMs: o.probeTimeoutMs ?? 300,
      onHealthy: (dests) => this.#onHealthy(dests),
    });
    this.#unsubscribe = o.endpoints.subscribe(key, (eps) => {
      if (eps.length > 0 && this.#coldSince !== undefined && this.#listedAt === undefined) {
        this.#listedAt = o.clock.now();
      }
      void this.#prober.updateEndpoints(eps, []);
    });
  }

  async acquire(signal: AbortSignal): Promise<Lease> {
    if (this.#usable().length === 0) this.#beginCold();
    const t = await this.rt.acquire(signal);
    const rt = this.rt;
    let done = false;
    return {
      dest: t.dest,
      release: () => {
        if (done) return;
        done = true;
        rt.release(t);
      },
    };
  }

  tryAcquire(): Lease | undefined {
    const rt = this.rt;
    const t = rt.tryAcquire();
    if (!t) return undefined;
    let done = false;
    return {
      dest: t.dest,
      release: () => {
        if (done) return;
        done = true;
        rt.release(t);
      },
    };
  }

  reportFailure(dest: string): void {
    if (this.#suspects.has(dest) || !this.#healthy.includes(dest)) return;
    this.#suspects.set(dest, undefined);
    this.#publish();
    this.#recheck(dest, 0);
  }

  activate(timeoutMs: number, signal?: AbortSignal): Promise<ActivationOutcome> {
    if (this.#usable().length === 0) this.#beginCold();
    return this.#activation.wait(this.#id, { timeoutMs, signal });
  }

  readyEndpoints(): string[] {
    return this.#usable();
  }

  recentColdStartsMs(): number[] {
    return [...this.#recent];
  }

  lastColdStart(): ColdStartPhases | undefined {
    return this.#last;
  }

  close(): void {
    this.#unsubscribe();
    this.#prober.stop();
    for (const h of this.#suspects.values()) if (h !== undefined) this.#o.clock.clearTimeout(h);
  }

  #usable(): string[] {
    return this.#healthy.filter((d) => !this.#suspects.has(d));
  }

  #beginCold(): void {
    if (this.#coldSince !== undefined) return;
    this.#coldSince = this.#o.clock.now();
    this.#listedAt = undefined;
    this.#prober.setActivating(true);
    this.#o.scaler?.poke(this.#key);
    void this.#prober.probeNow();
  }

  #onHealthy(dests: string[]): void {
    this.#healthy = dests;
    for (const [d, h] of this.#suspects) {
      if (!dests.includes(d)) {
        if (h !== undefined) this.#o.clock.clearTimeout(h);
        this.#suspects.delete(d);
      }
    }
    this.#publish();
  }

  #publish(): void {
    const usable = this.#usable();
    this.rt.updateDestinations(usable);
    this.#activation.update(this.#id, usable);
    if (usable.length > 0 && this.#coldSince !== undefined) this.#endCold();
    // Watchers hear about changes only (the first probe round of an empty revision is not one).
    const joined = usable.join(",");
    if (joined !== this.#notified) {
      this.#notified = joined;
      this.#notify(usable);
    }
  }

  #endCold(): void {
    const now = this.#o.clock.now();
    const began = this.#coldSince as number;
    const listed = this.#listedAt ?? now;
    this.#last = { beganAt: began, scaleMs: Math.max(0, listed - began), readyMs: Math.max(0, now - listed) };
    this.#recent.push(now - began);
    if (this.#recent.length > 20) this.#recent.shift();
    this.#o.telemetry?.coldStart({ ...this.#key, durationMs: now - began });
    this.#coldSince = undefined;
    this.#prober.setActivating(false);
  }

  /** Probes a suspect pod directly, with backoff, until it answers the queue probe again. */
  #recheck(dest: string, attempt: number): void {
    const delay = Math.min(1000, 25 * 2 ** attempt);
    const h = this.#o.clock.setTimeout(async () => {
      if (!this.#suspects.has(dest)) return;
      const ac = new AbortController();
      const t = this.#o.clock.setTimeout(() => ac.abort(), this.#o.probeTimeoutMs ?? 300);
      const outcome = await probeDestination(this.#o.fetch, dest, ac.signal);
      this.#o.clock.clearTimeout(t);
      if (!this.#suspects.has(dest)) return;
      if (outcome.healthy) {
        this.#suspects.delete(dest);
        this.#publish();
      } else this.#recheck(dest, attempt + 1);
    }, delay);
    this.#suspects.set(dest, h);
  }
}
