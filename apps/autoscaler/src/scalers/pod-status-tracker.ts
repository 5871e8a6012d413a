import {
  type PodEvent,
  type PodLike,
  type PodPhase,
  type PodStatusProblem,
  podEventProblem,
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
 * Reads a revision's pods each time they or their Warning Events change: the moment each pod is first seen
 * in each phase, and the revision's problem while none of its live pods is ready, reported only when its
 * message changes, so a crash loop is news at each restart and not at each status update. The statuses
 * come first (an exit code and its last lines say more than the BackOff event about it); the events add
 * what no status says (a probe that keeps failing, a volume that will not mount, the scheduler's reason).
 */
export class PodStatusTracker {
  readonly #r: PodStatusReports;
  readonly #seen = new Map<string, Set<PodPhase>>();
  /** When each pod was first seen with all its containers running. */
  readonly #startedAt = new Map<string, number>();
  /** What its queue-proxy said of the app's port, for pods never ready (see {@link waiting}). */
  readonly #ports = new Map<string, PodStatusProblem>();
  #pods: readonly PodLike[] = [];
  #events: (pod: string) => PodEvent[] = () => [];
  #problem: string | undefined;

  constructor(reports: PodStatusReports) {
    this.#r = reports;
  }

  /** True for a pod of this revision now (its events are worth keeping). */
  follows(pod: string): boolean {
    return this.#seen.has(pod);
  }

  /** Every pod of the revision now, at `now` (epoch ms). */
  update(pods: readonly PodLike[], now: number): void {
    this.#pods = pods;
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
        if (phase === "podStarted") this.#startedAt.set(name, now);
        this.#r.onPhase?.(phase, now, name);
      }
    }
    for (const name of this.#seen.keys()) {
      if (names.has(name)) continue;
      this.#seen.delete(name);
      this.#startedAt.delete(name);
      this.#ports.delete(name);
    }
    this.#report();
  }

  /**
   * Live pods whose containers have all run for `afterMs` or more at `now` and that were never ready, with
   * their IP: the ones to ask which ports their app listens on.
   */
  waiting(now: number, afterMs: number): { name: string; ip: string }[] {
    const out: { name: string; ip: string }[] = [];
    for (const p of this.#pods) {
      const name = p.metadata?.name;
      const ip = p.status?.podIP;
      const started = name === undefined ? undefined : this.#startedAt.get(name);
      if (!name || !ip || started === undefined || now - started < afterMs) continue;
      if (p.metadata?.deletionTimestamp || this.#seen.get(name)?.has("firstReady")) continue;
      out.push({ name, ip });
    }
    return out;
  }

  /** What a pod's queue-proxy said of its app's port (undefined: it listens there, or cannot tell). */
  portProblem(pod: string, problem: PodStatusProblem | undefined): void {
    if (!this.#seen.has(pod)) return;
    if (problem) this.#ports.set(pod, problem);
    else this.#ports.delete(pod);
    this.#report();
  }

  /** The pods' latest Warning per reason, after any of them changed. */
  events(of: (pod: string) => PodEvent[]): void {
    this.#events = of;
    this.#report();
  }

  #report(): void {
    const live = this.#pods.filter((p) => !p.metadata?.deletionTimestamp);
    const anyReady = live.some((p) => podPhasesReached(p).includes("firstReady"));
    const problem = anyReady ? undefined : this.#worst(live);
    if (problem?.message === this.#problem) return;
    this.#problem = problem?.message;
    this.#r.onProblem?.(problem);
  }

  /**
   * A failing problem before a waiting one; of each, the statuses' before the app's port (what its
   * queue-proxy sees listening), and that before the events' (a readiness probe answered 503 says less).
   */
  #worst(live: readonly PodLike[]): PodStatusProblem | undefined {
    const fromStatus = live.map(podProblem);
    const fromPorts = live.map((p) => this.#ports.get(p.metadata?.name ?? ""));
    const fromEvents = live.map((p) => podEventProblem(p, this.#events(p.metadata?.name ?? "")));
    const all = [...fromStatus, ...fromPorts, ...fromEvents].filter((x) => x !== undefined);
    return all.find((x) => x.severity === "failing") ?? all[0];
  }
}
