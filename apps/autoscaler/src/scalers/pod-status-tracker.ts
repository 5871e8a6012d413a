import {
  type PodLike,
  type PodPhase,
  type PodStatusProblem,
  podPhasesReached,
  podProblem,
} from "@thaw/kubernetes";

/** What a {@link PodStatusTracker} tells of one revision's pods. */
export interface PodStatusReports {
  /** A pod reached `phase` (first sight, by this process's clock: the objects' timestamps are whole seconds). */
  onPhase?: (phase: PodPhase, at: number, pod: string) => void;
  /** Why none of the revision's pods serves changed (undefined: nothing known to be wrong any more). */
  onProblem?: (problem: PodStatusProblem | undefined) => void;
}

/**
 * Reads a revision's pods each time they change: the moment each pod is first seen in each phase, and the
 * revision's problem (the first one its live pods show while none of them is ready), reported only when its
 * message changes, so a crash loop is news at each restart and not at each status update.
 */
export class PodStatusTracker {
  readonly #r: PodStatusReports;
  readonly #seen = new Map<string, Set<PodPhase>>();
  #problem: string | undefined;

  constructor(reports: PodStatusReports) {
    this.#r = reports;
  }

  /** Every pod of the revision now, at `now` (epoch ms). */
  update(pods: readonly PodLike[], now: number): void {
    const names = new Set<string>();
    for (const p of pods) {
      const name = p.metadata?.name;
      if (!name) continue;
      names.add(name);
      let seen = this.#seen.get(name);
      if (!seen) {
        seen = new Set();
        this.#seen.set(name, seen);
      }
      for (const phase of podPhasesReached(p)) {
        if (seen.has(phase)) continue;
        seen.add(phase);
        this.#r.onPhase?.(phase, now, name);
      }
    }
    for (const name of this.#seen.keys()) if (!names.has(name)) this.#seen.delete(name);
    const live = pods.filter((p) => !p.metadata?.deletionTimestamp);
    const anyReady = live.some((p) => podPhasesReached(p).includes("firstReady"));
    const problem = anyReady ? undefined : live.map(podProblem).find((x) => x !== undefined);
    if (problem?.message === this.#problem) return;
    this.#problem = problem?.message;
    this.#r.onProblem?.(problem);
  }
}
