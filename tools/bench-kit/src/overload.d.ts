/** Path of the overload tests' app. */
export const OVERLOAD_APP: string;
/** Knative's queue-full text. */
export const QUEUE_FULL_TEXT: string;
/** The outcome of one request of a burst. */
export interface BurstResult {
  i: number;
  ms: number;
  status: number;
  retryAfter?: string;
  body: string;
  error?: string;
}
/** Sends `count` GETs at once, each on its own connection, and records every outcome. */
export function fireBurst(o: {
  port: number;
  host: string;
  count: number;
  path?: (i: number) => string;
  timeoutMs?: number;
  /** Asked, after `quietMs` with no answer, whether none of `pending` reached the part under test. */
  neverArrived?: (pending: number) => Promise<boolean>;
  quietMs?: number;
}): Promise<BurstResult[]>;
/** The error of a request the server's runtime never handed to the part under test. */
export const NEVER_ARRIVED: "NEVER_ARRIVED";
/** Counts a burst's outcomes. */
export function tallyBurst(results: BurstResult[]): {
  byStatus: Record<string, number>;
  errors: number;
  retryable503: number;
  bare503: number;
  podQueueFull: number;
  /** Requests the server's runtime never handed to the part under test (not counted in `errors`). */
  neverArrived: number;
};
/** How far the app-side arrival order strays from the send order. */
export function orderAtApp(results: BurstResult[]): {
  answered: number;
  invertedShare: number;
  maxDisplacement: number;
};
/**
 * Creates `file` (the overload app's START_GATE_FILE) once `held()` reaches `count`, or once it has not grown
 * for `stallMs` (default 5 s), or after `maxWaitMs` (default 90 s).
 */
export function openGateWhenHeld(o: {
  file: string;
  held: () => number;
  count: number;
  maxWaitMs?: number;
  stallMs?: number;
}): Promise<{ held: number; waitedMs: number }>;
/** Resets or timeouts, pod-breaker 503s, 503s without Retry-After and other statuses of a burst. */
export function burstLosses(results: BurstResult[]): {
  errors: number;
  podQueueFull: number;
  bare503: number;
  otherStatuses: number[];
};
/** Start of the one parseable figures line (`THAW-FIGURES {json}`). */
export const FIGURES_PREFIX: string;
/** Prints `THAW-FIGURES {"test": test, ...figures}` on one line. */
export function printFigures(test: string, figures: Record<string, unknown>): void;
/** A burst's figures: sent, by status, lost, pod-refused, 503 + Retry-After, RSS [before, peak, after] MiB. */
export function burstFigures(
  results: BurstResult[],
  rss?: Record<string, { beforeKiB: number; peakKiB: number; afterKiB: number }>,
): {
  sent: number;
  byStatus: Record<string, number>;
  lost: number;
  neverArrived: number;
  podQueueFull: number;
  retryable503: number;
  /** The first answer neither 200 nor 503 with Retry-After (status or error, body start); null if none. */
  firstUnexpected: { i: number; status: number | string; body: string } | null;
  rssMiB: Record<string, [number, number, number]>;
};
/** The queue bound of the `bounded` case. */
export const OVERLOAD_SMALL_QUEUE: number;
/** One overload case: a service's name, containerConcurrency and queue bound. */
export interface OverloadCase {
  name: string;
  containerConcurrency: number;
  maxQueue: number;
  /** The overload app's WORK_MS for this case. */
  workMs: number;
}
/** The three overload cases: cc1, cc4 and bounded. */
export const OVERLOAD_CASES: readonly OverloadCase[];
/** `thaw up` config lines under `services:` for every case, start gates in `gateDir`. */
export function overloadUpServices(gateDir: string): string[];
/** One cold burst to measure: where to send it, when to open the pods' start gate, what RSS to sample. */
export interface ColdBurstOptions {
  port: number;
  host: string;
  count: number;
  timeoutMs?: number;
  /** The overload app's START_GATE_FILE. */
  gateFile: string;
  /** How many requests the part under test holds now. */
  held: () => number;
  /** Open the gate once `held()` reaches this (default `count`). */
  heldCount?: number;
  maxWaitMs?: number;
  /** The RSS groups to sample (name to pids). */
  rss: () => Record<string, number[]>;
  /** See fireBurst. */
  neverArrived?: (pending: number) => Promise<boolean>;
}
/** A measured cold burst: every outcome, its wall time, the held count at the gate, RSS figures. */
export interface ColdBurstRun {
  results: BurstResult[];
  ms: number;
  heldWhenGateOpened: number;
  rss: Record<string, { beforeKiB: number; peakKiB: number; afterKiB: number }>;
}
/** Fires a burst, opens the start gate once it is held, samples RSS until 300 ms after the last answer. */
export function measureColdBurst(o: ColdBurstOptions): Promise<ColdBurstRun>;
/** burstLosses() when every promise is kept. */
export const NO_LOSSES: Readonly<{
  errors: 0;
  podQueueFull: 0;
  bare503: 0;
  otherStatuses: readonly number[];
}>;
/** The most requests any pod's app had at once, over the burst's 200 answers. */
export function maxInFlightAtApp(results: BurstResult[]): number;
