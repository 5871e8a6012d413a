import type { DeciderSpec } from "./decider-spec.js";
import { TimedMaxWindow } from "./max-window.js";

/** The outcome of one tick. `scaleValid: false` means "change nothing" (no pods count or no metrics). */
export interface ScaleResult {
  desiredPodCount: number;
  excessBurstCapacity: number;
  scaleValid: boolean;
}

/** What the decider observed at a tick: null stands for the lister's or the collector's error. */
export interface DeciderObservation {
  /** Ready pods; pass 0 when the revision's endpoints are not found, null on any other lister error. */
  readyPods: number | null;
  /** Stable and panic averages of the spec's metric; null when the collector had no data or failed. */
  metrics: { stable: number; panic: number } | null;
}

/** Decider state worth persisting (e.g. in a Durable Object) to survive a restart. */
export interface DeciderState {
  /** Time panic mode was last (re)started, ms; undefined = not panicking. */
  panicTimeMs: number | undefined;
  maxPanicPods: number;
  /** Scale-down delay window contents, when the decider has one. */
  delayWindow?: { index: number; value: number }[];
}

/** Scale-down delay slots are 2 s wide, matching the decider tick. */
const DELAY_GRANULARITY_MS = 2000;

const INVALID: ScaleResult = Object.freeze({
  desiredPodCount: 0,
  excessBurstCapacity: 0,
  scaleValid: false,
}) as ScaleResult;

/** Knative's KPA decider for one revision (knative-spec.md e.5). */
export class Decider {
  private specValue: DeciderSpec;
  private panicTime: number | undefined;
  private maxPanic: number;
  private readonly delayWindow: TimedMaxWindow | undefined;

  /**
   * Builds a decider at time `now`. `readyPods` is the lister's count (null on error): more than one ready
   * pod starts in panic mode so a restarted autoscaler does not scale a loaded revision down at once.
   */
  constructor(spec: DeciderSpec, readyPods: number | null, now: number) {
    this.specValue = spec;
    this.delayWindow =
      spec.scaleDownDelayMs > 0 ? new TimedMaxWindow(spec.scaleDownDelayMs, DELAY_GRANULARITY_MS) : undefined;
    const ready = readyPods ?? 0;
    this.maxPanic = ready;
    this.panicTime = ready > 1 ? now : undefined;
  }

  /** The current spec. */
  get spec(): DeciderSpec {
    return this.specValue;
  }

  /** Replaces the spec; a scale-down delay window is neither created nor resized here (as in Knative). */
  update(spec: DeciderSpec): void {
    this.specValue = spec;
  }

  /** True while panic mode is on. */
  get panicking(): boolean {
    return this.panicTime !== undefined;
  }

  /** When panic mode was last (re)started, ms; undefined when not panicking. */
  get panicTimeMs(): number | undefined {
    return this.panicTime;
  }

  /** The highest desired count held during the current panic. */
  get maxPanicPods(): number {
    return this.maxPanic;
  }

  /** True when this decider holds a scale-down delay window. */
  get hasDelayWindow(): boolean {
    return this.delayWindow !== undefined;
  }

  /** State to persist. */
  snapshot(): DeciderState {
    const s: DeciderState = { panicTimeMs: this.panicTime, maxPanicPods: this.maxPanic };
    if (this.delayWindow) s.delayWindow = this.delayWindow.entries();
    return s;
  }

  /** Restores persisted state (the delay window only if this decider has one). */
  restore(state: DeciderState): void {
    this.panicTime = state.panicTimeMs;
    this.maxPanic = state.maxPanicPods;
    if (this.delayWindow && state.delayWindow) this.delayWindow.restore(state.delayWindow);
  }

  /** One tick at time `now` (ms). */
  scale(now: number, obs: DeciderObservation): ScaleResult {
    const spec = this.specValue;
    if (obs.readyPods === null || obs.metrics === null) return { ...INVALID };
    const original = obs.readyPods;
    const ready = Math.max(1, original);
    const { stable, panic } = obs.metrics;

    const maxUp = Math.ceil(spec.maxScaleUpRate * ready);
    const maxDown = spec.reachable ? Math.floor(ready / spec.maxScaleDownRate) : 0;
    const dspc = Math.ceil(stable / spec.targetValue);
    const dppc = Math.ceil(panic / spec.targetValue);
    let stablePods = Math.min(Math.max(dspc, maxDown), maxUp);
    let panicPods = Math.min(Math.max(dppc, maxDown), maxUp);

    if (spec.activationScale > 1) {
      if (dspc > 0 && spec.activationScale > stablePods) stablePods = spec.activationScale;
      if (dppc > 0 && spec.activationScale > panicPods) panicPods = spec.activationScale;
    }

    const over = dppc / ready >= spec.panicThreshold;
    if (over) {
      this.panicTime = now;
    } else if (this.panicTime !== undefined && this.panicTime + spec.stableWindowMs < now) {
      // The surge has had a whole stable window to show up in the stable average.
      this.panicTime = undefined;
      this.maxPanic = 0;
    }

    let desired = stablePods;
    if (this.panicTime !== undefined) {
      if (desired < panicPods) desired = panicPods;
      // Never scale down while panicking.
      if (desired > this.maxPanic) this.maxPanic = desired;
      else desired = this.maxPanic;
    }

    if (spec.reachable && this.delayWindow) {
      this.delayWindow.record(now, desired);
      desired = this.delayWindow.current();
    }

    let ebc = -1;
    if (spec.targetBurstCapacity === 0) ebc = 0;
    else if (spec.targetBurstCapacity > 0) {
      ebc = Math.floor(original * spec.totalValue - spec.targetBurstCapacity - panic);
    }
    return { desiredPodCount: toInt32(desired), excessBurstCapacity: toInt32(ebc), scaleValid: true };
  }
}

/** Go's int32(float) for the values a decider produces (finite, in range); infinities saturate. */
function toInt32(x: number): number {
  if (x >= 2147483647) return 2147483647;
  if (x <= -2147483648) return -2147483648;
  return Math.trunc(x) | 0;
}

/** Convenience constructor: `new Decider(spec, readyPods, now)`. */
export function createDecider(spec: DeciderSpec, readyPods: number | null, now: number): Decider {
  return new Decider(spec, readyPods, now);
}
