import { DurableObject } from "cloudflare:workers";
import {
  type PodTracker,
  probeDestination,
  probeRound,
  RevisionThrottler,
  SingleFlightActivator,
} from "@thaw/activation";
import { systemClock } from "@thaw/clock";
import { ErrorCode } from "@thaw/protocol";
import { EdgeScaling } from "../edge-scaling.js";
import type { ColdStartPhases, RevisionConfig, RevisionKey } from "../ports.js";
import { DeciderLoop } from "./decider-loop.js";
import {
  activateAtThawOrigin,
  type EdgeOrigin,
  type OriginOrIssue,
  originFromEnv,
  plainProbe,
  probeHint,
  sendScale,
  type WakeResult,
} from "./edge-origin.js";
import type { WorkerEnv } from "./env.js";
import type {
  AcquireResult,
  ActivateResult,
  GateSnapshot,
  RevisionSetup,
  RevisionStatus,
} from "./rpc-types.js";

interface Held {
  tracker: PodTracker;
  expiresAt: number;
}

/** Probe period while waking (ms), and the Knative period otherwise. */
const ACTIVATING_PROBE_MS = 50;
const PROBE_MS = 200;
const PROBE_TIMEOUT_MS = 300;
/** A healthy set older than this is probed again before /v1/activate trusts it (the platform may have scaled down). */
const REVERIFY_MS = 1000;

/**
 * One revision's coordinator at the edge: the throttler state (@thaw/activation's RevisionThrottler), backend
 * probing driven by alarms (probeRound each alarm), and single-flight activation through the one origin the
 * vars name: a Thaw origin's `POST /v1/activate`, or the signed scale webhook plus probing (edge-origin.ts).
 * Requests wait in the Worker invocations that received them; only small RPCs reach this object.
 */
export class RevisionActivator extends DurableObject<WorkerEnv> {
  #key: RevisionKey | undefined;
  #config: RevisionConfig | undefined;
  #rt: RevisionThrottler | undefined;
  #endpoints: string[] = [];
  #healthy = new Set<string>();
  readonly #leases = new Map<string, Held>();
  readonly #waiters = new Map<string, AbortController>();
  // The wake is sent by #beginCold (once per cold episode, so a failed one can be retried); the flight only waits.
  readonly #flight = new SingleFlightActivator({ clock: systemClock, poke: () => {} });
  /** Activate callers waiting on a webhook wake: aborted at once when the webhook cannot be delivered. */
  readonly #wakeWaiters = new Set<AbortController>();
  /** The Thaw origin's /v1/activate call in flight, joined by every concurrent caller. */
  #thawFlight: Promise<WakeResult> | undefined;
  #readinessPath: string | undefined;
  #lastProbeError: Error | undefined;
  /** When a probe last confirmed the healthy set, and the re-check in flight. */
  #verifiedAt = 0;
  #reverifying: Promise<void> | undefined;
  #coldSince: number | undefined;
  #last: ColdStartPhases | undefined;
  #recent: number[] = [];
  /** The edge decider (EDGE_DECIDER "true" with a webhook origin), created on first configure. */
  #decider: DeciderLoop | undefined;
  #skew = 0;
  /** Probe rounds run by alarms (tests read it). */
  probeRounds = 0;
  /** The edge's counters for this revision (the Node activator keeps the same in its Telemetry). */
  readonly #counts = { queued: 0, rejected: 0, replayed: 0, coldStarts: 0, wakes: 0 };

  /** Sets identity, limits and the pod list; idempotent (the Worker sends it with every call). */
  configure(
    key: RevisionKey,
    config: RevisionConfig,
    endpoints: string[],
    readinessPath?: string,
    autoscaling?: Record<string, unknown>,
  ): void {
    this.#key = key;
    this.#readinessPath = readinessPath;
    if (!this.#rt || this.#config?.containerConcurrency !== config.containerConcurrency) {
      this.#rt = new RevisionThrottler({
        containerConcurrency: config.containerConcurrency,
        queueLimit: config.maxQueue,
      });
      this.#rt.updateDestinations([...this.#healthy].sort());
    }
    this.#config = config;
    if (this.env.EDGE_DECIDER === "true" && !this.#decider) {
      // worker-app.ts validated the block already; an invalid one leaves the decider off.
      const made = EdgeScaling.create(
        this.#id(),
        config.containerConcurrency,
        this.#now(),
        autoscaling ?? {},
      );
      if (made.ok) this.#decider = new DeciderLoop(made.value, this.#now());
    }
    if (endpoints.join(",") !== this.#endpoints.join(",")) this.setEndpoints(endpoints);
  }

  /** New pod list (from the static config or a scaler callback); probing starts at once. */
  setEndpoints(endpoints: string[]): void {
    this.#endpoints = [...endpoints];
    for (const d of [...this.#healthy]) if (!endpoints.includes(d)) this.#healthy.delete(d);
    this.#publish();
    void this.#schedule(0);
  }

  /** Waits here (parked RPC) for a slot on a healthy pod. */
  async acquire(waiterId: string, timeoutMs: number, setup?: RevisionSetup): Promise<AcquireResult> {
    if (setup) this.#setup(setup);
    const rt = this.#must();
    if (this.#healthy.size === 0) {
      this.#counts.queued++;
      await this.#beginCold();
    }
    this.#decider?.scaling.requestIn(this.#now());
    if (this.#decider) await this.#schedule(Math.max(0, this.#decider.nextTick - this.#now()));
    const ac = new AbortController();
    this.#waiters.set(waiterId, ac);
    const timer = setTimeout(() => ac.abort(new DOMException("deadline", "TimeoutError")), timeoutMs);
    try {
      const tracker = await rt.acquire(ac.signal);
      const leaseId = crypto.randomUUID();
      const ttl = (this.#config?.timeoutSeconds ?? 300) * 1000 + 5000;
      this.#leases.set(leaseId, { tracker, expiresAt: Date.now() + ttl });
      return { ok: true, leaseId, dest: tracker.dest, snapshot: this.snapshot() };
    } catch (err) {
      const code = (err as { code?: string }).code ?? "ERR_CANCELLED";
      if (code === "ERR_QUEUE_FULL" || code === "ERR_DEADLINE") this.#counts.rejected++;
      this.#decider?.scaling.requestOut(this.#now());
      return { ok: false, code, message: (err as Error).message, snapshot: this.snapshot() };
    } finally {
      clearTimeout(timer);
      this.#waiters.delete(waiterId);
    }
  }

  /** The Worker's client went away: stop waiting for it. */
  cancel(waiterId: string): void {
    this.#waiters.get(waiterId)?.abort(new DOMException("client went away", "AbortError"));
  }

  /** Gives a slot back. */
  release(leaseId: string): void {
    const held = this.#leases.get(leaseId);
    if (!held || !this.#rt) return;
    this.#leases.delete(leaseId);
    this.#rt.release(held.tracker);
    this.#decider?.scaling.requestOut(this.#now());
  }

  /** A forward failed with no answer: drop the pod from the healthy set and probe again now. */
  async reportFailure(dest: string): Promise<void> {
    this.#counts.replayed++;
    if (!this.#healthy.delete(dest)) return;
    this.#publish();
    await this.#schedule(0);
  }

  /** Single-flight wake and wait for >= 1 ready pod (POST /v1/activate), through the configured origin. */
  async activate(timeoutMs: number, setup?: RevisionSetup): Promise<ActivateResult> {
    if (setup) this.#setup(setup);
    if (!this.#key) throw new Error("RevisionActivator.activate before configure");
    const origin = this.#origin();
    if (!origin.ok) return { ok: false, code: ErrorCode.ERR_UPSTREAM, message: origin.message };
    if (origin.value.kind === "thaw") return this.#wakeThaw(origin.value, timeoutMs);
    // The caller (a gateway's hook) holds requests on this call and reports all but one of them itself, as
    // it does to the cluster's activator whose cold-start poke counts that one: the edge decider counts it.
    this.#decider?.scaling.requestIn(this.#now());
    try {
      return await this.#activateHere(timeoutMs);
    } finally {
      this.#decider?.scaling.requestOut(this.#now());
    }
  }

  /** Wakes the revision through the webhook (once per cold episode) and waits for a ready pod. */
  async #activateHere(timeoutMs: number): Promise<ActivateResult> {
    if (this.#healthy.size > 0 && Date.now() - this.#verifiedAt > REVERIFY_MS) {
      this.#reverifying ??= this.#probeAll().finally(() => {
        this.#reverifying = undefined;
      });
      await this.#reverifying;
    }
    if (this.#healthy.size === 0) await this.#beginCold();
    if (this.#flight.waiting(this.#id()) >= (this.#config?.maxQueue ?? Number.POSITIVE_INFINITY)) {
      return { ok: false, code: "ERR_QUEUE_FULL", message: "pending request queue full" };
    }
    const ac = new AbortController();
    this.#wakeWaiters.add(ac);
    try {
      const r = await this.#flight.wait(this.#id(), { timeoutMs, signal: ac.signal });
      return { ok: true, ...r };
    } catch (err) {
      if (ac.signal.aborted) {
        return {
          ok: false,
          code: ErrorCode.ERR_UPSTREAM,
          message: String((ac.signal.reason as Error).message),
        };
      }
      return {
        ok: false,
        code: (err as { code?: string }).code ?? "ERR_DEADLINE",
        message: (err as Error).message,
        detail: probeHint(this.#lastProbeError),
      };
    } finally {
      this.#wakeWaiters.delete(ac);
    }
  }

  /** Origin (a): every concurrent caller joins one `/v1/activate` call to the Thaw origin. */
  async #wakeThaw(origin: Extract<EdgeOrigin, { kind: "thaw" }>, timeoutMs: number): Promise<WakeResult> {
    if (!this.#thawFlight) {
      this.#counts.wakes++;
      this.#thawFlight = activateAtThawOrigin(origin, this.#key as RevisionKey, timeoutMs).finally(() => {
        this.#thawFlight = undefined;
      });
      const r = await this.#thawFlight;
      if (r.ok && r.coldStart) this.#recordColdStart(Date.now() - r.waitedMs, Date.now());
      return r;
    }
    return this.#thawFlight;
  }

  /** The origin the vars name; a misconfiguration is a message naming the var. */
  #origin(): OriginOrIssue {
    return originFromEnv(this.env);
  }

  /** What the Worker caches. */
  snapshot(): GateSnapshot {
    return {
      endpoints: [...this.#healthy].sort(),
      recentColdStartsMs: [...this.#recent],
      lastColdStart: this.#last,
    };
  }

  /** The revision's counters in the shape of the Node activator's `/v1/status`. */
  status(): RevisionStatus {
    return {
      namespace: this.#key?.namespace ?? "",
      name: this.#key?.name ?? "",
      ...this.#counts,
      recentColdStartsMs: [...this.#recent],
      readyEndpoints: [...this.#healthy].sort(),
    };
  }

  /** Capacity view for tests and the status API. */
  stats(): { capacity: number; inFlight: number; waiting: number; leases: number; probeRounds: number } {
    const rt = this.#must();
    return {
      capacity: rt.capacity,
      inFlight: rt.inFlight,
      waiting: rt.waiting,
      leases: this.#leases.size,
      probeRounds: this.probeRounds,
    };
  }

  /** Probes the pods not yet healthy, sweeps leases of Worker invocations that died, re-arms itself. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    for (const [id, held] of this.#leases) if (held.expiresAt <= now) this.release(id);
    if (this.#endpoints.length > 0 && this.#healthy.size < this.#endpoints.length) {
      await this.#probe(this.#healthy);
    }
    if (this.#decider && this.#now() >= this.#decider.nextTick) await this.decide();
    const now2 = Date.now();
    const probing = this.#endpoints.length > 0 && this.#healthy.size < this.#endpoints.length;
    const due: number[] = [];
    if (probing) due.push(now2 + (this.#coldSince !== undefined ? ACTIVATING_PROBE_MS : PROBE_MS));
    if (this.#leases.size > 0) due.push(now2 + 10_000);
    if (this.#decider?.busy(this.#leases.size + this.#waiters.size))
      due.push(this.#decider.nextTick - this.#skew);
    if (due.length > 0) await this.ctx.storage.setAlarm(Math.min(...due));
  }

  /** One probe round over the endpoints not in `healthy`; the result becomes the healthy set. */
  async #probe(healthy: ReadonlySet<string>): Promise<void> {
    this.probeRounds++;
    const result = await probeRound(
      {
        ready: this.#endpoints,
        notReady: [],
        healthy,
        meshMode: "auto",
        probeOptimisation: true,
        timeoutMs: PROBE_TIMEOUT_MS,
      },
      (dest, signal) =>
        this.#readinessPath
          ? plainProbe(dest, this.#readinessPath, signal)
          : probeDestination((u, i) => fetch(u, i), dest, signal),
      systemClock,
    );
    this.#lastProbeError = result.error;
    this.#healthy = result.healthy;
    if (this.#healthy.size > 0) this.#verifiedAt = Date.now();
    this.#publish();
  }

  /** Probes every endpoint afresh: the healthy set is only believed again if they still answer. */
  async #probeAll(): Promise<void> {
    await this.#probe(new Set());
    if (this.#healthy.size < this.#endpoints.length) await this.#schedule(0);
  }

  /** One decider tick now (alarms run it every 2 s while the revision is active); tells the platform of changes. */
  async decide(): Promise<number> {
    const d = this.#decider;
    if (!d) return 0;
    const origin = this.#origin();
    const key = this.#key;
    const t = await d.tick(this.#now(), this.#healthy.size, async (replicas, reason) => {
      if (origin.ok && origin.value.kind === "webhook" && key) {
        await sendScale(origin.value, key, replicas, reason, systemClock);
      }
    });
    return t.replicas;
  }

  /** Load a gateway measured on requests it sent straight to the origin (POST /v1/load); false = no decider. */
  async load(requestMs: number, requestCount: number, setup?: RevisionSetup): Promise<boolean> {
    if (setup) this.#setup(setup);
    if (!this.#decider) return false;
    this.#decider.scaling.load(requestMs, requestCount);
    await this.#schedule(Math.max(0, this.#decider.nextTick - this.#now()));
    return true;
  }

  /** Replica counts the edge decider has sent, oldest first. */
  scaleHistory(): number[] {
    return [...(this.#decider?.sent ?? [])];
  }

  /** Moves the decider's clock on (tests only, THAW_TEST_CLOCK "true"): windows of seconds pass at once. */
  advanceDeciderClock(ms: number): void {
    if (this.env.THAW_TEST_CLOCK !== "true")
      throw new Error("advanceDeciderClock needs THAW_TEST_CLOCK=true");
    this.#skew += ms;
  }

  /** The decider's time: the system clock, moved on by tests. */
  #now(): number {
    return Date.now() + this.#skew;
  }

  #setup(s: RevisionSetup): void {
    this.configure(s.key, s.config, s.endpoints, s.readinessPath, s.autoscaling);
  }

  async #schedule(inMs: number): Promise<void> {
    const at = Date.now() + inMs;
    const cur = await this.ctx.storage.getAlarm();
    if (cur === null || cur > at) await this.ctx.storage.setAlarm(at);
  }

  /** A cold episode begins: probe at once and, for a webhook origin, ask for one replica (once per episode). */
  async #beginCold(): Promise<void> {
    if (this.#coldSince !== undefined) return;
    this.#coldSince = Date.now();
    const origin = this.#origin();
    if (origin.ok && origin.value.kind === "webhook" && this.#key) {
      this.#counts.wakes++;
      this.#decider?.scaling.woke(this.#now());
      const key = this.#key;
      void sendScale(origin.value, key, 1, "activation: request while scaled to zero", systemClock).catch(
        (err: unknown) => {
          // Nobody will start a pod: fail the waiters now (503 + Retry-After at the gateway) instead of
          // letting them sit out their timeout, and let the next request try the webhook again.
          console.warn("thaw: scale webhook failed", String(err));
          this.#coldSince = undefined;
          for (const ac of this.#wakeWaiters) ac.abort(err);
        },
      );
    }
    await this.#schedule(0);
  }

  #publish(): void {
    const healthy = [...this.#healthy].sort();
    this.#rt?.updateDestinations(healthy);
    this.#flight.update(this.#id(), healthy);
    if (healthy.length > 0 && this.#coldSince !== undefined) {
      this.#recordColdStart(this.#coldSince, Date.now());
      this.#coldSince = undefined;
    }
  }

  #recordColdStart(began: number, now: number): void {
    const ms = now - began;
    this.#last = { beganAt: began, scaleMs: 0, readyMs: ms };
    this.#recent.push(ms);
    this.#counts.coldStarts++;
    if (this.#recent.length > 20) this.#recent.shift();
  }

  #id(): string {
    return this.#key ? `${this.#key.namespace}/${this.#key.name}` : "";
  }

  #must(): RevisionThrottler {
    if (!this.#rt) throw new Error("RevisionActivator used before configure");
    return this.#rt;
  }
}
