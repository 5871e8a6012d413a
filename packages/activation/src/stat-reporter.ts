import { emptyStat, type Stat } from "@thaw/protocol";
import type { RequestStatsReport } from "./request-stats.js";

/**
 * The queue-proxy's view of its latest report as a protobuf `Stat` (c.5): counts divided by the
 * reporting period (so per second), averages as they are, uptime since the reporter was created.
 * Before the first report the Stat carries only the pod name.
 */
export class StatReporter {
  readonly #podName: string;
  readonly #periodSec: number;
  readonly #startMs: number;
  #stat: Stat;

  constructor(podName: string, reportingPeriodMs: number, startMs: number) {
    if (!(reportingPeriodMs > 0))
      throw new RangeError(`StatReporter: period must be > 0, got ${reportingPeriodMs}`);
    this.#podName = podName;
    this.#periodSec = reportingPeriodMs / 1000;
    this.#startMs = startMs;
    this.#stat = emptyStat(podName);
  }

  /** Records one report taken at `nowMs`. */
  report(r: RequestStatsReport, nowMs: number): void {
    this.#stat = {
      podName: this.#podName,
      averageConcurrentRequests: r.averageConcurrency,
      averageProxiedConcurrentRequests: r.averageProxiedConcurrency,
      requestCount: r.requestCount / this.#periodSec,
      proxiedRequestCount: r.proxiedRequestCount / this.#periodSec,
      processUptime: (nowMs - this.#startMs) / 1000,
      timestamp: 0,
    };
  }

  /** The Stat to serve on :9090 now. */
  get stat(): Stat {
    return this.#stat;
  }
}
