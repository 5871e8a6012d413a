import type { ActiveStatus, ScaleEffect, SksMode } from "../scale-apply.js";
import { activeThreshold, applyScale, nextActiveCondition, sksModeFor } from "../scale-apply.js";
import type { ScaleSettings } from "../scale-settings.js";
import { withWarmFloor } from "../schedule/warm-floor.js";

/** Far in the past: a revision that starts scaled to zero has been inactive and proxied "forever". */
const LONG_AGO = -1e12;

/**
 * The PodAutoscaler reconciler as the simulator runs it: applies the decider's wanted scale through
 * `applyScale` (the simulated activator always answers its probe), then updates the SKS mode and the Active
 * condition, as Knative's reconciler does after each decision.
 */
export class RevisionControl {
  /** The decider's latest valid desired scale (−1 = none yet). */
  want: number;
  /** The decider's latest excess burst capacity. */
  ebc = 0;
  /** Warm floor in force (a schedule window's min-scale, 1 for a wake hint): min-scale = max(configured, floor). */
  floor = 0;
  active: ActiveStatus;
  mode: SksMode;
  private activeSince: number;
  private proxySince: number | undefined;
  private initialized = true;
  private replicas: number;

  constructor(
    private readonly settings: ScaleSettings,
    initialReplicas: number,
  ) {
    const up = initialReplicas > 0;
    this.want = initialReplicas;
    this.replicas = initialReplicas;
    this.active = up ? "True" : "False";
    this.activeSince = up ? 0 : LONG_AGO;
    this.mode = up ? "Serve" : "Proxy";
    this.proxySince = up ? undefined : LONG_AGO;
  }

  /**
   * One reconcile at `now` with `readyPods` ready. Returns the replicas to request (undefined = unchanged)
   * and the re-checks to schedule.
   */
  reconcile(now: number, readyPods: number): { patch: number | undefined; effects: ScaleEffect[] } {
    const settings = withWarmFloor(this.settings, this.floor);
    const input = {
      now,
      desired: this.want,
      settings,
      state: {
        currentReplicas: this.replicas,
        active: this.active,
        activeSinceMs: this.activeSince,
        scaleTargetInitialized: this.initialized,
        reachable: true,
        sksMode: this.mode,
        proxySinceMs: this.proxySince,
      },
    };
    let step = applyScale(input);
    if (step.kind === "probeActivator") step = applyScale({ ...input, activatorProbe: true });
    if (step.kind !== "decided") return { patch: undefined, effects: [] };
    if (step.patchReplicas !== undefined) this.replicas = step.patchReplicas;
    const mode = sksModeFor(step.scale, this.ebc, this.active);
    if (mode !== this.mode) {
      this.mode = mode;
      this.proxySince = mode === "Proxy" ? now : undefined;
    }
    const minReady = activeThreshold(settings, { reachable: true, scaleTargetInitialized: this.initialized });
    if (readyPods >= minReady) this.initialized = true;
    const cond = nextActiveCondition(this.active, step.scale, readyPods, minReady);
    if (cond.status !== this.active) {
      this.active = cond.status;
      this.activeSince = now;
    }
    return { patch: step.patchReplicas, effects: step.effects };
  }
}
