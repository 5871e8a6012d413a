/**
 * What a pod's Kubernetes Events add to its status: the kubelet's and the scheduler's own words for a probe
 * that keeps failing, a volume that will not mount, a sandbox that cannot be made, an image that cannot be
 * pulled, a node that cannot be found. Events are read as core v1 `Event` objects (the kubelet and the
 * scheduler aggregate repeats into one object with a `count`); only Warnings about pods are kept.
 */
import { type PodLike, type PodStatusProblem, podPhasesReached } from "./pod-status.js";

/** core v1 `Event`, as far as a pod's problem goes. */
export interface EventLike {
  metadata?: { name?: string; namespace?: string };
  involvedObject?: { kind?: string; name?: string; fieldPath?: string };
  reason?: string;
  message?: string;
  type?: string;
  /** How many times it happened (core v1 aggregates repeats; unset = once). */
  count?: number;
  lastTimestamp?: unknown;
  eventTime?: unknown;
}

/** One Warning kept for a pod: the latest of its reason. */
export interface PodEvent {
  reason: string;
  message: string;
  count: number;
  /** The container it is about (`spec.containers{name}`), when it says. */
  container?: string;
}

/**
 * The reasons read, and when each still applies: a Warning is about a step the pod has not got past yet
 * (a FailedScheduling event of a pod on a node is history). `failing`: waiting will not fix it.
 */
const REASONS: Record<string, { severity: "failing" | "waiting"; while: (p: PodLike) => boolean }> = {
  FailedScheduling: { severity: "waiting", while: (p) => !reached(p, "podScheduled") },
  FailedMount: { severity: "waiting", while: (p) => !reached(p, "sandboxReady") },
  FailedAttachVolume: { severity: "waiting", while: (p) => !reached(p, "sandboxReady") },
  FailedCreatePodSandBox: { severity: "waiting", while: (p) => !reached(p, "sandboxReady") },
  // The kubelet's Failed: a pull that failed, or a container it could not create or start.
  Failed: { severity: "failing", while: (p) => !reached(p, "podStarted") },
  // Back-off pulling an image, or restarting a container that keeps exiting.
  BackOff: { severity: "failing", while: (p) => !reached(p, "podStarted") || restarting(p) },
  Unhealthy: { severity: "waiting", while: (p) => !reached(p, "firstReady") },
};

/** Missing objects (a Secret, a ConfigMap, a PVC) are a mistake to fix, not a wait. */
const MISSING = /\bnot found\b/i;

function reached(p: PodLike, phase: ReturnType<typeof podPhasesReached>[number]): boolean {
  return podPhasesReached(p).includes(phase);
}

function restarting(p: PodLike): boolean {
  return (p.status?.containerStatuses ?? []).some((c) => c.state?.waiting?.reason === "CrashLoopBackOff");
}

/** `spec.containers{queue-proxy}` → `queue-proxy`. */
function containerOf(fieldPath: string | undefined): string | undefined {
  return fieldPath ? /\{([^}]+)\}/.exec(fieldPath)?.[1] : undefined;
}

/** The pod a Warning is about and what to keep of it; undefined for what is not read (Normal, other kinds). */
export function podEventOf(e: EventLike): { pod: string; event: PodEvent } | undefined {
  const pod = e.involvedObject?.name;
  if (e.involvedObject?.kind !== "Pod" || !pod || e.type !== "Warning") return undefined;
  if (!e.reason || !(e.reason in REASONS)) return undefined;
  const container = containerOf(e.involvedObject.fieldPath);
  const event: PodEvent = {
    reason: e.reason,
    // The kubelet's messages are one line; a long one (a scheduler's per-node list) is cut.
    message: oneLine(e.message ?? ""),
    count: e.count && e.count > 0 ? e.count : 1,
  };
  if (container) event.container = container;
  return { pod, event };
}

/** When an event last happened, epoch ms (0 when it does not say): a Date from a list, a string from a watch. */
function timeOf(e: EventLike): number {
  const v = e.lastTimestamp ?? e.eventTime;
  const t = v instanceof Date ? v.getTime() : Date.parse(String(v ?? ""));
  return Number.isNaN(t) ? 0 : t;
}

function oneLine(s: string): string {
  const t = s.replace(/\s*\n\s*/g, " | ").trim();
  return t.length > 400 ? `${t.slice(0, 400)}...` : t;
}

/**
 * The Warnings of the pods one follows, bounded: a Warning about a pod not asked for is dropped, and of
 * each pod only the latest event per reason is kept (the kubelet updates one object per repeat, so that is
 * its running count).
 */
export class PodEventLog {
  readonly #byPod = new Map<string, Map<string, PodEvent>>();

  /** Replaces everything with `events` (a fresh list), keeping only the pods `follow` names. */
  reset(events: Iterable<EventLike>, follow: (pod: string) => boolean): void {
    this.#byPod.clear();
    // Oldest first, so the one kept per reason is the latest.
    for (const e of [...events].sort((a, b) => timeOf(a) - timeOf(b))) this.add(e, follow);
  }

  /** Records one event; true when it is kept (about a followed pod, of a reason read). */
  add(e: EventLike, follow: (pod: string) => boolean): boolean {
    const got = podEventOf(e);
    if (!got || !follow(got.pod)) return false;
    let reasons = this.#byPod.get(got.pod);
    if (!reasons) {
      reasons = new Map();
      this.#byPod.set(got.pod, reasons);
    }
    reasons.set(got.event.reason, got.event);
    return true;
  }

  /** Drops every pod `follow` no longer names. */
  prune(follow: (pod: string) => boolean): void {
    for (const pod of this.#byPod.keys()) if (!follow(pod)) this.#byPod.delete(pod);
  }

  /** The kept Warnings of `pod`. */
  of(pod: string): PodEvent[] {
    return [...(this.#byPod.get(pod)?.values() ?? [])];
  }

  /** Pods with Warnings kept (tests, the memory bound). */
  get size(): number {
    return this.#byPod.size;
  }
}

/** In the order a pod meets them: the first that still applies is the one that holds it back. */
const ORDER = Object.keys(REASONS);

/**
 * Why a pod does not serve, from its Warnings that still apply to where its status says it is; undefined
 * when none does. A readiness probe that fails names its container and how many times it failed.
 */
export function podEventProblem(p: PodLike, events: readonly PodEvent[]): PodStatusProblem | undefined {
  if (p.metadata?.deletionTimestamp || reached(p, "firstReady")) return undefined;
  const live = events
    .filter((e) => REASONS[e.reason]?.while(p))
    .sort((a, b) => ORDER.indexOf(a.reason) - ORDER.indexOf(b.reason));
  const e = live[0];
  if (!e) return undefined;
  let severity = REASONS[e.reason]?.severity ?? "waiting";
  if (e.reason === "FailedMount" && MISSING.test(e.message)) severity = "failing";
  const times = e.count > 1 ? ` (${e.count} times)` : "";
  const where = e.container ? ` in container ${e.container}` : "";
  if (e.reason === "Unhealthy") {
    // The kubelet says "Readiness probe failed: <output>"; an HTTP probe's output is its status code only.
    return { severity, message: `${e.message}${where}${times}` };
  }
  return { severity, message: `${e.reason}${where}${times}: ${e.message}` };
}
