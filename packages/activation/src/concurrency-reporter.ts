import type { Clock, TimerHandle } from "@thaw/clock";
import type { Stat, WireStatMessage } from "@thaw/protocol";
import { RequestStats } from "./request-stats.js";

/** A revision's identity as the autoscaler keys it. */
export interface RevisionRef {
  namespace: string;
  name: string;
}

/** How the activator's concurrency reporter is wired. */
export interface ConcurrencyReporterOptions {
  /** This activator's pod name, put into every Stat. */
  podName: string;
  /** Receives each batch: the cold-start poke alone, then one batch per tick. */
  send: (messages: WireStatMessage[]) => void;
  /** Drives the periodic reports started by `start()`. */
  clock: Clock;
  /** Report period; Knative's is 1 s. */
  intervalMs?: number;
}

interface Entry {
  ref: RevisionRef;
  stats: RequestStats;
  /** Requests of this revision still in flight through the activator. */
  refs: number;
  /** 1 until the first report: the poke already told the autoscaler about the first request. */
  firstAdjustment: number;
}

/**
 * The activator's per-revision load report (d.5): a revision's first request sends an immediate
 * poke so the autoscaler can scale from zero, then every tick reports each tracked revision.
 */
export class ConcurrencyReporter {
  readonly #entries = new Map<string, Entry>();
  readonly #opts: ConcurrencyReporterOptions;
  #timer: TimerHandle | undefined;

  constructor(opts: ConcurrencyReporterOptions) {
    this.#opts = opts;
  }

  /** Number of revisions being tracked. */
  get size(): number {
    return this.#entries.size;
  }

  /** A request for `rev` entered the activator at `nowMs`. */
  requestIn(rev: RevisionRef, nowMs: number): void {
    const key = `${rev.namespace}/${rev.name}`;
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = {
        ref: { namespace: rev.namespace, name: rev.name },
        stats: new RequestStats(nowMs),
        refs: 0,
        firstAdjustment: 1,
      };
      this.#entries.set(key, entry);
      this.#opts.send([this.#message(entry.ref, 1, 1)]);
    }
    entry.refs++;
    entry.stats.requestIn(nowMs);
  }

  /**
   * The cold-start poke for a request held elsewhere (an ingress hook's activation call stands for it): one
   * request, sent at once, with no entry behind it. Emulating it as a request in and out would leave an entry
   * whose next report is a 0 that lands in the burst's second, or the still-open one, and halves the reading
   * of everything the hook holds (docs/demand.md). A revision already reported needs no poke.
   */
  poke(rev: RevisionRef): void {
    if (this.#entries.has(`${rev.namespace}/${rev.name}`)) return;
    this.#opts.send([this.#message({ namespace: rev.namespace, name: rev.name }, 1, 1)]);
  }

  /** A request for `rev` left the activator at `nowMs`. */
  requestOut(rev: RevisionRef, nowMs: number): void {
    const entry = this.#entries.get(`${rev.namespace}/${rev.name}`);
    if (!entry) return;
    entry.refs--;
    entry.stats.requestOut(nowMs);
  }

  /** Reports every tracked revision at `nowMs` and forgets idle ones; does not send. */
  report(nowMs: number): WireStatMessage[] {
    const out: WireStatMessage[] = [];
    for (const [key, entry] of this.#entries) {
      const r = entry.stats.report(nowMs);
      const adj = entry.firstAdjustment;
      entry.firstAdjustment = 0;
      out.push(
        this.#message(entry.ref, Math.max(r.averageConcurrency - adj, 0), Math.max(r.requestCount - adj, 0)),
      );
      if (r.averageConcurrency === 0 && entry.refs === 0) this.#entries.delete(key);
    }
    return out;
  }

  /** Starts reporting every `intervalMs` through `send` (empty batches are not sent). */
  start(): void {
    if (this.#timer !== undefined) return;
    const { clock, intervalMs = 1000 } = this.#opts;
    const tick = () => {
      this.#timer = clock.setTimeout(tick, intervalMs);
      const batch = this.report(clock.now());
      if (batch.length > 0) this.#opts.send(batch);
    };
    this.#timer = clock.setTimeout(tick, intervalMs);
  }

  /** Stops the periodic reports. */
  stop(): void {
    if (this.#timer !== undefined) this.#opts.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #message(ref: RevisionRef, concurrency: number, count: number): WireStatMessage {
    const stat: Stat = {
      podName: this.#opts.podName,
      averageConcurrentRequests: concurrency,
      averageProxiedConcurrentRequests: 0,
      requestCount: count,
      proxiedRequestCount: 0,
      processUptime: 0,
      timestamp: 0,
    };
    return { namespace: ref.namespace, name: ref.name, stat };
  }
}
