import {
  BackendProber,
  probeDestination,
  QueueFullError,
  RevisionFailedError,
  type RevisionThrottler,
  type SingleFlightActivator,
  type Ticket,
  waitFor,
} from "@thaw/activation";
import type { TimerHandle } from "@thaw/clock";
import type { LocalCoordinatorOptions } from "./local-coordinator.js";
import type {
  ActivationOutcome,
  ColdStartPhases,
  Lease,
  LeaseWaiter,
  RevisionGate,
  RevisionKey,
} from "./ports.js";
import { TrackerLease } from "./tracker-lease.js";

/**
 * One revision's coordination in process: its throttler, its backend prober (fed by the endpoint source),
 * the suspects a failed forward set aside, and the cold-start bookkeeping.
 */
export class LocalGate implements RevisionGate {
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
  /** The scaler's latest diagnosis of why no pod is ready (see `explain`). */
  #why: string | undefined;
  /** Set while the scaler says the revision is failing: its cause, and when the next start is tried. */
  #failing: { cause: string; retryAt: number | undefined } | undefined;
  /** Set once the prober switched to the private Service's ClusterIP (d.3), for good. */
  #viaClusterIP: { dest: string; backends: number } | undefined;
  rt: RevisionThrottler;
  /** Bound on /v1/activate waiters, like the throttler's queue for proxied requests. */
  maxQueue = Number.POSITIVE_INFINITY;

  constructor(
    key: RevisionKey,
    rt: RevisionThrottler,
    o: LocalCoordinatorOptions,
    activation: SingleFlightActivator,
    notify: (eps: string[]) => void,
  ) {
    this.#key = key;
    this.#id = `${key.namespace}/${key.name}`;
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
      passthroughLb: o.passthroughLb ?? false,
      revision: key,
      onHealthy: (dests) => this.#onHealthy(dests),
      // d.3 fallback: pods behind a mesh answer 503, their private Service's ClusterIP the queue probe.
      onClusterIP: (dest, backends) => this.#onClusterIP(dest, backends),
    });
    this.#unsubscribe = o.endpoints.subscribe(key, (eps, detail) => {
      if (eps.length > 0 && this.#coldSince !== undefined && this.#listedAt === undefined) {
        this.#listedAt = o.clock.now();
      }
      this.#prober.setClusterIP(detail?.clusterIP);
      const notReady = new Set(detail?.notReady ?? []);
      void this.#prober.updateEndpoints(
        eps.filter((e) => !notReady.has(e)),
        eps.filter((e) => notReady.has(e)),
      );
    });
  }

  acquire(signal: AbortSignal): Promise<Lease> {
    return waitFor(signal, (who) => this.park(who));
  }

  park(who: LeaseWaiter): Ticket | undefined {
    if (this.#usable().length === 0) {
      this.#beginCold();
      const failed = this.#failed();
      if (failed) {
        who.refused(failed);
        return undefined;
      }
    }
    return this.rt.park(new TrackerLease(this.rt, who));
  }

  tryAcquire(): Lease | undefined {
    const t = this.rt.tryAcquire();
    if (!t) return undefined;
    const lease = new TrackerLease(this.rt, undefined);
    lease.granted(t);
    return lease;
  }

  reportFailure(dest: string): void {
    if (this.#suspects.has(dest) || !this.#healthy.includes(dest)) return;
    this.#suspects.set(dest, undefined);
    this.#publish();
    this.#recheck(dest, 0);
  }

  activate(timeoutMs: number, signal?: AbortSignal): Promise<ActivationOutcome> {
    if (this.#usable().length === 0) {
      this.#beginCold();
      const failed = this.#failed();
      if (failed) return Promise.reject(failed);
    }
    if (this.#activation.waiting(this.#id) >= this.maxQueue) return Promise.reject(new QueueFullError());
    return this.#activation.wait(this.#id, { timeoutMs, signal }).catch((err: unknown) => {
      // A timeout says what was last seen of the pods, so the client learns why, not only how long.
      const why = this.#why;
      if (why !== undefined && (err as { code?: string })?.code === "ERR_DEADLINE") {
        (err as { detail?: string }).detail = why;
      }
      throw err;
    });
  }

  fail(cause: string, retryAfterSeconds?: number): void {
    this.#why = cause;
    // Requests that come while it stays failing are answered at once too, not held until their deadline.
    const now = this.#o.clock.now();
    this.#failing = {
      cause,
      retryAt: retryAfterSeconds === undefined ? undefined : now + retryAfterSeconds * 1000,
    };
    const err = new RevisionFailedError(cause, retryAfterSeconds);
    this.#activation.fail(this.#id, err);
    this.rt.rejectWaiting(err);
  }

  explain(why: string | undefined): void {
    this.#why = why;
    this.#failing = undefined;
  }

  readyEndpoints(): string[] {
    return this.#usable();
  }

  /** Moves to a new throttler (the revision's config changed) and gives it the current destinations. */
  attach(rt: RevisionThrottler): void {
    this.rt = rt;
    this.#route();
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

  /** Where requests go: the healthy pods, or the ClusterIP while it has ready pods behind it. */
  #usable(): string[] {
    const cip = this.#viaClusterIP;
    if (cip) return cip.backends > 0 ? [cip.dest] : [];
    return this.#healthy.filter((d) => !this.#suspects.has(d));
  }

  /** The answer for a request while the revision is failing, its Retry-After the time left until the next start. */
  #failed(): RevisionFailedError | undefined {
    const f = this.#failing;
    if (!f) return undefined;
    const left =
      f.retryAt === undefined ? undefined : Math.max(1, Math.ceil((f.retryAt - this.#o.clock.now()) / 1000));
    return new RevisionFailedError(f.cause, left);
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
    if (dests.length > 0) this.#failing = undefined;
    for (const [d, h] of this.#suspects) {
      if (!dests.includes(d)) {
        if (h !== undefined) this.#o.clock.clearTimeout(h);
        this.#suspects.delete(d);
      }
    }
    this.#publish();
  }

  #onClusterIP(dest: string, backends: number): void {
    this.#viaClusterIP = { dest, backends };
    this.#healthy = [];
    for (const h of this.#suspects.values()) if (h !== undefined) this.#o.clock.clearTimeout(h);
    this.#suspects.clear();
    this.#publish();
  }

  /** Gives the throttler where requests go now. */
  #route(): void {
    const cip = this.#viaClusterIP;
    if (cip) this.rt.updateClusterIP(cip.dest, cip.backends);
    else this.rt.updateDestinations(this.#usable());
  }

  #publish(): void {
    const usable = this.#usable();
    this.#route();
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
      const revision = this.#o.passthroughLb ? this.#key : undefined;
      const outcome = await probeDestination(this.#o.fetch, dest, ac.signal, "http", revision);
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
