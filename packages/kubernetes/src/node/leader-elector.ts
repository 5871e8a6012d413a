import { CoordinationV1Api, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import type { Clock, TimerHandle } from "@thaw/clock";
import { claimLease, type LeaseSpecLike, releaseLease } from "../lease-record.js";
import { apiFailure } from "./api-error.js";
import { type Logger, silentLogger } from "./logger.js";

/** Options of {@link LeaderElector}. Defaults: a follower takes over within 15 s of the leader's death. */
export interface LeaderElectorOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** Lease name, e.g. `thaw-autoscaler`. */
  name: string;
  /** This candidate's identity (the pod name); must be unique among candidates. */
  identity: string;
  clock: Clock;
  /** How long a lease holds without renewal (default 10 s). */
  leaseDurationSeconds?: number;
  /** Leader renews, follower retries, this often (default 2 s). */
  retryMs?: number;
  /** A leader that could not renew for this long stops leading (default 7 s, under the lease duration). */
  renewDeadlineMs?: number;
  logger?: Logger;
  /** Called when this candidate starts or stops leading, and when the holder seen changes. */
  onChange?: (state: { leading: boolean; holder: string | undefined }) => void;
}

/**
 * Leader election on a `coordination.k8s.io/v1` Lease, as client-go does it: create the Lease if absent;
 * otherwise take it only once its holder has not renewed for `leaseDurationSeconds`, measured on this
 * candidate's own clock from when it last saw the record change (so clock skew between nodes does not
 * matter); every write carries the resourceVersion read, so of two candidates racing only one succeeds
 * (the other gets 409). Worst case for a takeover: one retry to see the last renewal, the lease duration,
 * one more retry: 2 + 10 + 2 = 14 s with the defaults.
 */
export class LeaderElector {
  readonly #o: Required<Omit<LeaderElectorOptions, "onChange" | "logger">> &
    Pick<LeaderElectorOptions, "onChange">;
  readonly #api: CoordinationV1Api;
  readonly #log: Logger;
  #leading = false;
  #holder: string | undefined;
  #observed: { key: string; at: number } | undefined;
  #lastRenew = 0;
  #timer: TimerHandle | undefined;
  #stopped = true;
  #inFlight: Promise<void> | undefined;

  constructor(o: LeaderElectorOptions) {
    this.#o = { leaseDurationSeconds: 10, retryMs: 2000, renewDeadlineMs: 7000, ...o };
    if (this.#o.renewDeadlineMs >= this.#o.leaseDurationSeconds * 1000) {
      throw new RangeError(
        `renewDeadlineMs (${this.#o.renewDeadlineMs}) must be shorter than the lease (${this.#o.leaseDurationSeconds} s)`,
      );
    }
    this.#api = o.kubeConfig.makeApiClient(CoordinationV1Api);
    this.#log = o.logger ?? silentLogger;
  }

  /** True while this candidate holds the lease. */
  get leading(): boolean {
    return this.#leading;
  }

  /** The holder last seen in the Lease (this candidate's identity while leading). */
  get holder(): string | undefined {
    return this.#holder;
  }

  /** Resolves once the attempt in flight (if any) is over (tests on a manual clock). */
  async settled(): Promise<void> {
    await this.#inFlight;
  }

  /** Starts campaigning at once, then every `retryMs`. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#tick();
  }

  /**
   * Stops campaigning. A leader releases the Lease (empty holder, 1 s duration) so a follower takes over
   * at its next retry instead of after the lease duration; `release: false` just stops (a crash, in tests).
   */
  async stop(o: { release?: boolean } = {}): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#o.clock.clearTimeout(this.#timer);
    await this.#inFlight;
    if (this.#leading && o.release !== false) {
      try {
        const lease = await this.#get();
        if (lease?.spec?.holderIdentity === this.#o.identity) {
          lease.spec = releaseLease(lease.spec as LeaseSpecLike, this.#o.clock.now()) as V1Lease["spec"];
          await this.#api.replaceNamespacedLease({
            name: this.#o.name,
            namespace: this.#o.namespace,
            body: lease,
          });
        }
      } catch (err) {
        this.#log.warn("lease release failed", { error: apiFailure(err, "release lease").message });
      }
    }
    this.#set(false, this.#leading ? undefined : this.#holder);
  }

  #tick(): void {
    if (this.#stopped) return;
    this.#inFlight = this.#tryAcquireOrRenew().finally(() => {
      this.#inFlight = undefined;
      if (!this.#stopped) this.#timer = this.#o.clock.setTimeout(() => this.#tick(), this.#o.retryMs);
    });
  }

  async #get(): Promise<V1Lease | undefined> {
    try {
      return await this.#api.readNamespacedLease({ name: this.#o.name, namespace: this.#o.namespace });
    } catch (err) {
      if (apiFailure(err, "get lease").status === 404) return undefined;
      throw err;
    }
  }

  async #tryAcquireOrRenew(): Promise<void> {
    const { clock, identity, name, namespace, leaseDurationSeconds } = this.#o;
    const now = clock.now();
    try {
      const lease = await this.#get();
      if (!lease) {
        const body: V1Lease = {
          apiVersion: "coordination.k8s.io/v1",
          kind: "Lease",
          metadata: { name, namespace },
          spec: claimLease(undefined, identity, now, leaseDurationSeconds) as V1Lease["spec"],
        };
        await this.#api.createNamespacedLease({ namespace, body });
        this.#renewed(now);
        return;
      }
      const spec = (lease.spec ?? {}) as LeaseSpecLike;
      const key = `${lease.metadata?.resourceVersion}`;
      if (this.#observed?.key !== key) this.#observed = { key, at: now };
      const holder = spec.holderIdentity || undefined;
      const durationMs = (spec.leaseDurationSeconds ?? leaseDurationSeconds) * 1000;
      const expired = this.#observed.at + durationMs <= now;
      if (holder && holder !== identity && !expired) {
        this.#set(false, holder);
        return;
      }
      lease.spec = claimLease(spec, identity, now, leaseDurationSeconds) as V1Lease["spec"];
      // resourceVersion from the read: a candidate that lost the race gets 409 Conflict.
      await this.#api.replaceNamespacedLease({ name, namespace, body: lease });
      this.#renewed(now);
    } catch (err) {
      const f = apiFailure(err, `lease ${namespace}/${name}`);
      if (f.status !== 409) this.#log.warn("lease attempt failed", { error: f.message });
      if (this.#leading && now - this.#lastRenew >= this.#o.renewDeadlineMs) {
        this.#log.warn("could not renew the lease in time; stepping down", { identity });
        this.#set(false, undefined);
      }
    }
  }

  #renewed(now: number): void {
    this.#lastRenew = now;
    this.#observed = undefined;
    this.#set(true, this.#o.identity);
  }

  #set(leading: boolean, holder: string | undefined): void {
    if (leading === this.#leading && holder === this.#holder) return;
    const was = this.#leading;
    this.#leading = leading;
    this.#holder = holder;
    if (was !== leading)
      this.#log.info(leading ? "started leading" : "stopped leading", { identity: this.#o.identity });
    this.#o.onChange?.({ leading, holder });
  }
}
