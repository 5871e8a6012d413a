import { RequestStats } from "@thaw/activation";
import {
  activeThreshold,
  applyScale,
  DEFAULT_AUTOSCALER_CONFIG,
  Decider,
  deciderSpecFor,
  MetricCollection,
  metricSpecFor,
  nextActiveCondition,
  parseAutoscalingBlock,
  type ScaleSettings,
  type ScaleState,
  scaleSettingsFor,
  sksModeFor,
} from "@thaw/autoscaler";

/** What one decider tick concluded. */
export interface EdgeTick {
  /** Replicas to ask the platform for: the decider's count after the cluster's scale step (grace rule). */
  replicas: number;
  /** True when `replicas` differs from what was last asked for (the webhook is sent only then). */
  changed: boolean;
  /** The KPA decider's own count, before min/max and the scale-to-zero rules. */
  decided: number;
  /** Why the count moved, for the webhook's `reason`. */
  reason: string;
  /** When the scale step wants to look again although no tick may be due (a grace period ends). */
  recheckAfterMs: number | undefined;
}

/** A problem in a revision's `autoscaling` block. */
export interface EdgeScalingIssue {
  path: string;
  message: string;
}

/**
 * The cluster autoscaler's decision for one revision, at the edge: @thaw/activation's RequestStats measure
 * the requests the edge itself sees (it is the revision's only ingress, so its concurrency is the
 * revision's), @thaw/autoscaler's collector and KPA decider decide, and the same scale step as
 * thaw-autoscaler's (`applyScale`: min/max, scale-to-zero only after the stable window and the grace
 * period) turns that into the replicas sent over the scale webhook. Call `tick` every 2 s; time is a parameter.
 */
export class EdgeScaling {
  /** The revision this scales, as the caller names it. */
  readonly id: string;
  readonly #stats: RequestStats;
  readonly #metrics: MetricCollection;
  readonly #decider: Decider;
  readonly #settings: ScaleSettings;
  readonly #state: ScaleState;
  #lastTick: number;
  #want = 0;
  #ebc = 0;
  /** Load reported by gateways since the last tick: request-milliseconds (concurrency x time) and count. */
  #reported = { requestMs: 0, requestCount: 0 };

  private constructor(
    id: string,
    containerConcurrency: number,
    now: number,
    autoscaling: Record<string, unknown>,
  ) {
    const block = parseAutoscalingBlock(autoscaling, DEFAULT_AUTOSCALER_CONFIG, "autoscaling");
    if (!block.ok) throw new Error("EdgeScaling.create validates first");
    const facts = { containerConcurrency, annotations: block.value.annotations };
    this.id = id;
    // No scrape target: every request passes through here, as with Knative's TBC = -1.
    this.#metrics = new MetricCollection(metricSpecFor(block.value.config, facts, ""));
    this.#decider = new Decider(deciderSpecFor(block.value.config, facts), 0, now);
    this.#settings = scaleSettingsFor(block.value.config, block.value.annotations);
    this.#stats = new RequestStats(now);
    this.#lastTick = now;
    // Starts scaled to zero and inactive, as thaw-autoscaler's revisions do.
    this.#state = {
      currentReplicas: 0,
      active: "False",
      activeSinceMs: now,
      scaleTargetInitialized: true,
      reachable: true,
      sksMode: "Proxy",
      proxySinceMs: now,
    };
  }

  /** The scaling of one revision, or the issues of its `autoscaling` block (Knative's keys and ranges). */
  static create(
    id: string,
    containerConcurrency: number,
    now: number,
    autoscaling: Record<string, unknown> = {},
  ): { ok: true; value: EdgeScaling } | { ok: false; issues: EdgeScalingIssue[] } {
    const block = parseAutoscalingBlock(autoscaling, DEFAULT_AUTOSCALER_CONFIG, "autoscaling");
    if (!block.ok) return { ok: false, issues: block.issues };
    return { ok: true, value: new EdgeScaling(id, containerConcurrency, now, autoscaling) };
  }

  /** A request entered (waiting or forwarded). */
  requestIn(now: number): void {
    this.#stats.requestIn(now);
  }

  /** A request left. */
  requestOut(now: number): void {
    this.#stats.requestOut(now);
  }

  /**
   * Load a gateway isolate measured on the requests it sent straight to the origin: `requestMs` is its
   * average concurrency times the period it covers, so reports of any length from any number of isolates add up.
   */
  load(requestMs: number, requestCount: number): void {
    this.#reported.requestMs += Math.max(0, requestMs);
    this.#reported.requestCount += Math.max(0, requestCount);
  }

  /** The activation asked the platform for one replica outside a tick: the step counts it as asked for. */
  woke(now: number): void {
    if ((this.#state.currentReplicas ?? 0) === 0) {
      this.#state.currentReplicas = 1;
      this.#state.active = "Unknown";
      this.#state.activeSinceMs = now;
    }
  }

  /** Replicas last asked for. */
  get replicas(): number {
    return this.#state.currentReplicas ?? 0;
  }

  /** Records the load since the last tick, runs the decider, then the scale step, with `readyPods` seen. */
  tick(now: number, readyPods: number): EdgeTick {
    const periodSec = Math.max(0.001, (now - this.#lastTick) / 1000);
    this.#lastTick = now;
    const r = this.#stats.report(now);
    const extra = this.#reported;
    this.#reported = { requestMs: 0, requestCount: 0 };
    this.#metrics.recordStat(
      {
        averageConcurrentRequests: r.averageConcurrency + extra.requestMs / (periodSec * 1000),
        requestCount: (r.requestCount + extra.requestCount) / periodSec,
      },
      now,
    );
    const reading = this.#metrics.reading(this.#decider.spec.scalingMetric, now);
    const res = this.#decider.scale(now, { readyPods, metrics: reading.ok ? reading : null });
    if (res.scaleValid) {
      this.#want = res.desiredPodCount;
      this.#ebc = res.excessBurstCapacity;
    }
    const from = this.replicas;
    let step = applyScale({ now, desired: this.#want, state: this.#state, settings: this.#settings });
    // The edge holds every cold request itself, so "is the activator in the path?" is always yes here.
    if (step.kind === "probeActivator") {
      step = applyScale({
        now,
        desired: this.#want,
        state: this.#state,
        settings: this.#settings,
        activatorProbe: true,
      });
    }
    if (step.kind !== "decided") return this.#result(from, undefined);
    if (step.patchReplicas !== undefined) this.#state.currentReplicas = step.patchReplicas;
    const st = this.#state;
    const cond = nextActiveCondition(st.active, step.scale, readyPods, activeThreshold(this.#settings, st));
    if (cond.status !== st.active) {
      st.active = cond.status;
      st.activeSinceMs = now;
    }
    const mode = sksModeFor(step.scale, this.#ebc, st.active);
    if (mode !== st.sksMode) {
      st.sksMode = mode;
      st.proxySinceMs = mode === "Proxy" ? now : undefined;
    }
    const waits = step.effects.map((e) => (e.kind === "recheckAfter" ? e.delayMs : e.periodMs));
    return this.#result(from, waits.length > 0 ? Math.min(...waits) : undefined);
  }

  #result(from: number, recheckAfterMs: number | undefined): EdgeTick {
    const replicas = this.replicas;
    const reason =
      replicas === 0
        ? "edge-decider: idle for the stable window and the scale-to-zero grace period"
        : `edge-decider: ${replicas} for the load the edge sees (decider ${this.#want})`;
    return { replicas, changed: replicas !== from, decided: this.#want, reason, recheckAfterMs };
  }
}
