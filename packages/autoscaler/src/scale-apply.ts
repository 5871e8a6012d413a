import type { ScaleSettings } from "./scale-settings.js";

/** The PodAutoscaler's Active condition: True = active, Unknown = activating, False = inactive. */
export type ActiveStatus = "True" | "False" | "Unknown";

/** Who receives a revision's traffic: its pods (Serve) or the activator (Proxy). */
export type SksMode = "Serve" | "Proxy";

/** The revision's scaling state the caller keeps between reconciles. Times in ms. */
export interface ScaleState {
  /** Replicas currently requested from the scale target; undefined reads as 1 (Kubernetes' default). */
  currentReplicas: number | undefined;
  active: ActiveStatus;
  /** When the Active condition last changed. */
  activeSinceMs: number;
  /** True once the scale target first reached its initial scale. */
  scaleTargetInitialized: boolean;
  reachable: boolean;
  sksMode: SksMode;
  /** Since when the activator has been in the path (SKS endpoints point at it); undefined = not now. */
  proxySinceMs?: number | undefined;
}

/** Effects the caller performs for a decided scale step. */
export type ScaleEffect =
  /** Run the reconcile again after this delay (the condition it waits on is time-based). */
  | { kind: "recheckAfter"; delayMs: number }
  /** Keep probing the activator in the background (every periodMs, for at most timeoutMs) and reconcile on success. */
  | { kind: "startActivatorProbing"; periodMs: number; timeoutMs: number };

/** One scale application step: either the probe result is needed first, or a decision. */
export type ScaleStep =
  /** Probe the activator for this revision (P3), then call `applyScale` again with `activatorProbe` set. */
  | { kind: "probeActivator" }
  | {
      kind: "decided";
      /** The scale reported as wanted (−1 = unknown). */
      scale: number;
      /** Replicas to write to the scale target, when they differ from the current ones. */
      patchReplicas: number | undefined;
      effects: ScaleEffect[];
    };

/** Input of one scale application step. */
export interface ScaleApplyInput {
  now: number;
  /** The decider's desired pod count; −1 = unknown. */
  desired: number;
  state: ScaleState;
  settings: ScaleSettings;
  /** The activator probe's outcome when `applyScale` asked for it; true = the activator answers for this revision. */
  activatorProbe?: boolean;
}

const ACTIVATOR_PROBE_PERIOD_MS = 1000;
const ACTIVATOR_PROBE_TIMEOUT_MS = 45_000;
/** Re-check soon after deactivation while already proxied: nothing else would trigger a reconcile. */
const PROXY_RECHECK_MS = 3000;

/**
 * Knative's scaler step (e.6): bound the desired scale by min/max (and the initial scale until it was
 * reached), then decide whether scaling to zero may happen now, later, or not at all. Pure: the activator
 * probe and the re-checks are returned as data.
 */
export function applyScale(input: ScaleApplyInput): ScaleStep {
  const { now, state, settings } = input;
  let desired = input.desired;
  if (desired < 0 && state.active !== "Unknown") return decided(desired, undefined, []);

  let min = state.reachable ? settings.minScale : 0;
  const max = settings.maxScale;
  if (settings.initialScale > 1 && !state.scaleTargetInitialized && state.reachable) {
    min = Math.max(min, settings.initialScale);
  }
  if (desired < min) desired = min;
  if (max !== 0 && desired > max) desired = max;

  const effects: ScaleEffect[] = [];
  const apply = (scale: number): ScaleStep => {
    const current = state.currentReplicas ?? 1;
    return decided(scale, scale === current ? undefined : scale, effects);
  };
  if (desired !== 0) return apply(desired);
  if (!settings.enableScaleToZero) return apply(1);

  const since = now - state.activeSinceMs;
  switch (state.active) {
    case "Unknown": {
      // Stuck activating past the deadline: give up and scale to zero.
      if (since > settings.activationTimeoutMs) return apply(0);
      effects.push({ kind: "recheckAfter", delayMs: settings.activationTimeoutMs });
      return decided(-1, undefined, effects);
    }
    case "True": {
      if (since >= settings.stableWindowMs) {
        if (state.sksMode === "Proxy") effects.push({ kind: "recheckAfter", delayMs: PROXY_RECHECK_MS });
        // Not applied: the caller marks the revision inactive first, which puts the activator in path.
        return decided(0, undefined, effects);
      }
      effects.push({ kind: "recheckAfter", delayMs: settings.stableWindowMs - since });
      return apply(1);
    }
    case "False": {
      if (settings.targetBurstCapacity !== -1) {
        // The activator must be in path before the last pod goes, or requests would be lost.
        if (input.activatorProbe === undefined) return { kind: "probeActivator" };
        if (!input.activatorProbe) {
          effects.push({
            kind: "startActivatorProbing",
            periodMs: ACTIVATOR_PROBE_PERIOD_MS,
            timeoutMs: ACTIVATOR_PROBE_TIMEOUT_MS,
          });
          return decided(0, undefined, effects);
        }
      }
      const retention = state.reachable ? settings.scaleToZeroPodRetentionPeriodMs : 0;
      if (since >= Math.max(settings.scaleToZeroGracePeriodMs, retention)) return apply(0);
      if (since < retention) {
        effects.push({ kind: "recheckAfter", delayMs: retention - since });
        return decided(0, undefined, effects);
      }
      const proxyFor = state.proxySinceMs === undefined ? 0 : now - state.proxySinceMs;
      const wait = settings.scaleToZeroGracePeriodMs - proxyFor;
      if (wait <= 0) return apply(0);
      effects.push({ kind: "recheckAfter", delayMs: wait });
      return decided(0, undefined, effects);
    }
  }
}

function decided(scale: number, patchReplicas: number | undefined, effects: ScaleEffect[]): ScaleStep {
  return { kind: "decided", scale, patchReplicas, effects };
}

/** Ready pods needed to call the revision active: the initial scale until first reached, then max(min, 1). */
export function activeThreshold(
  settings: Pick<ScaleSettings, "minScale" | "initialScale">,
  state: Pick<ScaleState, "reachable" | "scaleTargetInitialized">,
): number {
  const min = state.reachable ? settings.minScale : 0;
  return state.scaleTargetInitialized ? Math.max(min, 1) : Math.max(min, settings.initialScale);
}

/** The next Active condition from the wanted scale and ready pods; reason as Knative reports it. */
export function nextActiveCondition(
  current: ActiveStatus,
  want: number,
  readyPods: number,
  minReady: number,
): { status: ActiveStatus; reason: "NoTraffic" | "TimedOut" | "Queued" | "Active" } {
  if (want === 0 || minReady === 0) {
    // Scaling to zero while activating only happens when activation timed out.
    if (current === "Unknown" && minReady > 0) return { status: "False", reason: "TimedOut" };
    return { status: "False", reason: "NoTraffic" };
  }
  if (readyPods < minReady) {
    if (want > 0 || current !== "False") return { status: "Unknown", reason: "Queued" };
    return { status: "False", reason: "NoTraffic" };
  }
  if (want > 0 || current !== "False") return { status: "True", reason: "Active" };
  return { status: current, reason: "NoTraffic" };
}

/**
 * Whether the activator sits in the path: Proxy when scaled to zero (want 0, or want unknown while inactive)
 * or when the excess burst capacity is negative; Serve otherwise.
 */
export function sksModeFor(want: number, excessBurstCapacity: number, active: ActiveStatus): SksMode {
  if (want === 0 || excessBurstCapacity < 0 || (want === -1 && active === "False")) return "Proxy";
  return "Serve";
}
