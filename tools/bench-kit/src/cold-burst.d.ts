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
/** The burst's figures as one `THAW-FIGURES` line for the closing note. */
export function figuresLine(label: string, r: ColdBurstResult): string;
