/** What a burst came to: each request's status and latency, and the revision's scale over time. */
export interface ColdBurstResult {
  statuses: number[];
  latenciesMs: number[];
  /** `[ms since the burst, desiredScale, readyPods]`, one row per change seen. */
  timeline: [number, number, number][];
  /** Largest desiredScale seen, and when (ms since the burst). */
  maxDesired: number;
  maxDesiredAtMs: number;
}
/** The `p`-th percentile (nearest rank) of `xs`. */
export function percentile(xs: readonly number[], p: number): number;
/** Sends `n` concurrent GETs for `host` to `port`, reading `revisionsUrl` every 100 ms until all are answered. */
export function coldBurst(o: {
  port: number;
  host: string;
  n: number;
  /** A JSON array of revisions with `name`, `desiredScale` and `readyPods`. */
  revisionsUrl: string;
  name: string;
  /** Bearer token of the status API, if it has one. */
  token?: string;
  /** Request i goes to `${path}${i}` (default `/burst/`). */
  path?: string;
}): Promise<ColdBurstResult>;
/** When a burst's scale reached a count; fields are undefined when it was never seen. */
export interface ScaleReached {
  /** The first step up (ms since the burst): the decider's run at the burst's first stat. */
  firstMs: number | undefined;
  /** When the count was first reached. */
  reachedMs: number | undefined;
  /** `reachedMs - firstMs`. */
  afterFirstMs: number | undefined;
  /** Changes of the desired count after the first step up until the count was reached: 0 or 1 = within one decider tick. */
  stepsAfterFirst: number | undefined;
  /** Pods ready when it was reached. */
  readyThen: number | undefined;
}
/** When the scale first reached `atLeast` pods, and how long after its first step up. */
export function scaleReached(r: ColdBurstResult, atLeast: number): ScaleReached;
/**
 * Reached within one decider tick of the first step up: in one step (however late the tick ran), or within
 * `tickMs` (default 2000) of the first step whatever the steps (each held report at zero steps at once).
 */
export function withinOneTick(reached: ScaleReached, tickMs?: number): boolean;
/** The burst's figures as one `THAW-FIGURES` line for the closing note. */
export function figuresLine(label: string, r: ColdBurstResult): string;
