import { appendFileSync } from "node:fs";
import type { LocalScalerOptions, PodInfo } from "@thaw/autoscaler-service";

/** The environment variable naming the file cold-start marks are appended to (benchmarks only). */
export const COLD_MARKS_ENV = "THAW_COLD_MARKS";

/** The moments of a cold start `thaw up` itself sees, in the order they happen. */
export type ColdMark =
  /** The activator asked the autoscaler for a pod (the scale decision follows in the same turn). */
  | "poked"
  /** The local scaler spawned the pod's two processes. */
  | "spawned"
  /** The pod's queue-proxy printed its `listening` line. */
  | "qpListening"
  /** The pod passed the scaler's queue probe (kubelet's view). */
  | "podReady"
  /** The activator's prober found the pod healthy: requests go to it from now on. */
  | "healthy";

type Rev = { namespace: string; name: string };
type PodOutput = NonNullable<LocalScalerOptions["onPodOutput"]>;

/** Records cold-start moments as JSON lines (see {@link coldMarks}). */
export interface ColdMarks {
  mark(revision: Rev, what: ColdMark, pod?: string): void;
  /** Marks `spawned` for a pod seen for the first time and `podReady` when it first turns ready. */
  pods(revision: Rev, pods: readonly PodInfo[]): void;
  /** Wraps the pod-output callback so the queue-proxy's `listening` line is marked. */
  podOutput(next: PodOutput | undefined): PodOutput;
}

/**
 * Cold-start marks for the benchmark's per-phase breakdown (apps/cli/bench/cold-start.mjs): with
 * THAW_COLD_MARKS=<file>, each mark is appended as `{"rev":"ns/name","what":...,"at":<epoch ms>}` with
 * sub-millisecond wall time, which the benchmark lines up with the app's own marks and its client's.
 * Written synchronously (a few lines per cold start) so a mark is on disk before the next phase starts.
 * Undefined when the variable is not set: nothing is tracked then.
 */
export function coldMarks(env: Readonly<Record<string, string | undefined>>): ColdMarks | undefined {
  const file = env[COLD_MARKS_ENV];
  if (!file) return undefined;
  const seen = new Map<string, boolean>();
  const mark = (revision: Rev, what: ColdMark, pod?: string) => {
    const at = performance.timeOrigin + performance.now();
    const line = { rev: `${revision.namespace}/${revision.name}`, what, at, ...(pod ? { pod } : {}) };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  };
  return {
    mark,
    pods(revision, pods) {
      for (const p of pods) {
        const was = seen.get(p.name);
        if (was === undefined) mark(revision, "spawned", p.name);
        if (p.ready && !was) mark(revision, "podReady", p.name);
        seen.set(p.name, p.ready);
      }
    },
    podOutput(next) {
      return (rev, pod, container, line) => {
        if (container === "queue-proxy" && line.includes("thaw-queue-proxy listening")) {
          mark(rev, "qpListening", pod);
        }
        next?.(rev, pod, container, line);
      };
    },
  };
}
