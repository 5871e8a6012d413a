/**
 * What a pod's status says about a cold start and about a broken app: the moments each phase was first
 * seen, and why no pod serves (the container's waiting reason, its exit code and its termination message,
 * which the kubelet fills with the last log lines under `terminationMessagePolicy: FallbackToLogsOnError`).
 */

/** A container's state as `v1.ContainerStatus` gives it. */
export interface ContainerStateLike {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: unknown };
  terminated?: { exitCode?: number; signal?: number; reason?: string; message?: string };
}

/** `v1` Pod as far as its phases and its containers' health go. */
export interface PodLike {
  metadata?: { name?: string; deletionTimestamp?: unknown };
  spec?: { nodeName?: string };
  status?: {
    podIP?: string;
    conditions?: { type?: string; status?: string; reason?: string; message?: string }[];
    containerStatuses?: {
      name?: string;
      ready?: boolean;
      restartCount?: number;
      state?: ContainerStateLike;
      lastState?: ContainerStateLike;
    }[];
  };
}

/** The cold-start moments a pod's status shows, in the order they happen. */
export const POD_PHASES = ["podCreated", "podScheduled", "sandboxReady", "podStarted", "firstReady"] as const;

/** One of {@link POD_PHASES}. */
export type PodPhase = (typeof POD_PHASES)[number];

const condition = (p: PodLike, type: string) =>
  p.status?.conditions?.some((c) => c.type === type && c.status === "True") ?? false;

/**
 * The phases this pod has reached now: created (it exists), scheduled (bound to a node), sandbox ready
 * (PodReadyToStartContainers: the kubelet made its sandbox and network), started (every container
 * running), first ready (the Ready condition: its readiness probes passed).
 */
export function podPhasesReached(p: PodLike): PodPhase[] {
  const cs = p.status?.containerStatuses ?? [];
  const reached: [PodPhase, boolean][] = [
    ["podCreated", true],
    ["podScheduled", Boolean(p.spec?.nodeName) || condition(p, "PodScheduled")],
    ["sandboxReady", condition(p, "PodReadyToStartContainers")],
    ["podStarted", cs.length > 0 && cs.every((c) => c.state?.running !== undefined)],
    ["firstReady", condition(p, "Ready")],
  ];
  return reached.filter(([, ok]) => ok).map(([phase]) => phase);
}

/** Why a revision's pods do not serve; `failing` will not pass by waiting, `waiting` may. */
export interface PodStatusProblem {
  severity: "failing" | "waiting";
  message: string;
}

/** Waiting reasons the kubelet gives when it cannot make or start a container: a wait will not fix them. */
const CANNOT_START = new Set([
  "CreateContainerConfigError",
  "CreateContainerError",
  "RunContainerError",
  "StartError",
  "InvalidImageName",
  "ErrImagePull",
  "ImagePullBackOff",
  "ErrImageNeverPull",
]);

/** The last lines of a termination message, joined on one line (the kubelet keeps up to 80 lines). */
function lastLines(message: string | undefined, n = 5): string {
  const lines = (message ?? "")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  return lines.slice(-n).join(" | ");
}

/** A runtime's "no such executable" wording (runc: `exec: "x": executable file not found in $PATH`). */
const NOT_FOUND = /executable file not found|no such file or directory/i;

/**
 * Why this pod does not serve, read from its containers' statuses: a container that exited before the pod
 * was ready (its exit code and last output), a command that does not exist, an image that cannot be
 * pulled, the crash-loop back-off; or from its conditions: no node takes it (the scheduler's reason, which
 * may pass when a node frees up or joins); undefined when nothing is known to be wrong (starting, or ready).
 */
export function podProblem(p: PodLike): PodStatusProblem | undefined {
  if (p.metadata?.deletionTimestamp || condition(p, "Ready")) return undefined;
  for (const c of p.status?.containerStatuses ?? []) {
    const name = c.name ?? "container";
    const restarts = c.restartCount ?? 0;
    const waiting = c.state?.waiting;
    const ended = c.state?.terminated ?? c.lastState?.terminated;
    const said = [waiting?.message, ended?.message].join("\n");
    if (NOT_FOUND.test(said) && (ended?.exitCode === 127 || ended?.exitCode === 128 || waiting)) {
      const what = lastLines(said, 1);
      return { severity: "failing", message: `no such command in container ${name}: ${what}` };
    }
    if (waiting?.reason && CANNOT_START.has(waiting.reason)) {
      const why = waiting.message ? `: ${lastLines(waiting.message, 2)}` : "";
      return { severity: "failing", message: `container ${name} cannot start (${waiting.reason})${why}` };
    }
    if (ended && c.ready !== true) {
      const how =
        ended.signal !== undefined && ended.signal !== 0
          ? `was killed by signal ${ended.signal}`
          : ended.reason === "OOMKilled"
            ? "was killed for using more memory than its limit (OOMKilled)"
            : `exited with code ${ended.exitCode ?? "?"}`;
      let message = `${name === "user-container" ? "app" : `container ${name}`} ${how} before it was ready`;
      const out = lastLines(ended.message);
      if (out) message += `; last output: ${out}`;
      if (waiting?.reason === "CrashLoopBackOff" || restarts > 0) {
        message += ` (crash loop: restarted ${restarts} time${restarts === 1 ? "" : "s"})`;
      }
      return { severity: "failing", message };
    }
  }
  const unscheduled = p.status?.conditions?.find(
    (c) => c.type === "PodScheduled" && c.status === "False" && c.reason === "Unschedulable",
  );
  if (unscheduled) {
    const why = unscheduled.message ? `: ${lastLines(unscheduled.message, 2)}` : "";
    return { severity: "waiting", message: `no node can take the pod (Unschedulable)${why}` };
  }
  return undefined;
}
