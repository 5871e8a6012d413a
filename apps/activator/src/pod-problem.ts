import type { Coordinator, RevisionConfig, RevisionDirectory, RevisionKey } from "./ports.js";

/** What a scaler found wrong with a revision's pods (`thaw up`'s local scaler, a cluster's pod statuses). */
export interface PodProblemReport {
  /** `failing` will not pass by waiting (the app exited, no such command, no image); `waiting` may. */
  severity: "failing" | "waiting" | null;
  /** What went wrong, in words a user acts on; null when nothing is wrong any more. */
  message: string | null;
  /** When the next start is tried (a crash loop's back-off), for the answer's Retry-After. */
  restartInMs?: number;
}

/**
 * Tells a revision's gate what its scaler found: a timeout then names it, and a failing revision's held
 * requests are answered now with ERR_REVISION_FAILED and the cause instead of at their deadline. One path
 * for `thaw up` (its scaler's reports) and a cluster activator (the autoscaler's notes on the stat socket).
 */
export function applyPodProblem(
  deps: { revisions: RevisionDirectory; coordinator: Coordinator },
  rev: RevisionKey,
  problem: PodProblemReport | undefined,
): void {
  const apply = (config: RevisionConfig | undefined) => {
    if (!config) return;
    const gate = deps.coordinator.gate(rev, config);
    gate.explain?.(problem?.message ?? undefined);
    if (problem?.severity === "failing" && problem.message) {
      const after = problem.restartInMs === undefined ? undefined : Math.ceil(problem.restartInMs / 1000);
      gate.fail?.(problem.message, after);
    }
  };
  const found = deps.revisions.lookup(rev);
  // A directory that answers at once is applied at once (thaw up's), so nothing runs between report and gate.
  if (found instanceof Promise) found.then(apply, () => {});
  else apply(found);
}
