import { RequestStats, type RevisionRef } from "@thaw/activation";
import type { Clock, TimerHandle } from "@thaw/clock";
import { revisionKey, type Stat, type WireStatMessage } from "@thaw/protocol";

/** Where the hook's held-request stats go, and under which source name. */
export interface HeldStatsSink {
  /** The Stat's pod name: one name per hook process, so the autoscaler sees one non-pod source. */
  podName: string;
  /** Receives the batches: a revision's settle report, then one batch a second while anything is held. */
  send(messages: WireStatMessage[]): void;
}

/** Report period, Knative's activator's. */
const PERIOD_MS = 1000;
/** A revision's burst is taken to have arrived once this long passed without another held request... */
export const SETTLE_MS = 200;
/** ...or this long after its first held request, whichever comes first. */
export const SETTLE_MAX_MS = 1000;

interface Entry {
  ref: RevisionRef;
  stats: RequestStats;
  held: number;
  /** 1 until the first report: the activation's cold-start poke already counted the first request. */
  owed: number;
  /** The second (Unix) the last report was stamped with; undefined until the settle report is sent. */
  second: number | undefined;
  /** When the first request was held (the settle report's deadline counts from it). */
  firstAt: number;
  /** The pending settle report, moved on by each request held before it. */
  settle: TimerHandle | undefined;
}

/**
 * The requests a hook holds, as demand (issue 28.1). Knative's activator reports every request it holds; here
 * the hook holds them, so it reports them the same way: time-weighted concurrency per revision every second,
 * as a non-pod source. A request counts from the moment the hook holds it until it is handed on (to the
 * activator, which counts it from its arrival, or to a pod, whose queue-proxy does) or refused, so none is
 * counted twice. The activation the first held request starts pokes the autoscaler with 1 (the activator's
 * cold-start poke), so the first report subtracts it, as Knative's activator does after its own poke.
 *
 * The first report comes once the burst has arrived ({@link SETTLE_MS} without another held request, at most
 * {@link SETTLE_MAX_MS} after the first) and is stamped with the first request's second: it lands in the
 * poke's bucket, so the whole burst is in one bucket and the next decider tick asks for Knative's
 * ceil(held / target) at once instead of averaging the poke's lone 1 in for a panic window. It carries the
 * number held at that moment, not the average since the first: the average counts each request only from its
 * arrival, so a burst of 10 that took 60 ms to arrive would read as 8.5 and ask for a pod less, and a burst
 * spread over half a second by a busy machine would leave a partial second in the panic window for 6 s
 * (docs/demand.md). The reports after it are time-weighted averages over their period, as Knative's.
 * Every report is stamped with the second it was taken in, at most one a second per revision: a tick in the
 * settle report's second (the timer runs on another revision's phase) leaves the period open until the next
 * tick, so the burst is never in one bucket twice. Ticks only while something is tracked, so an idle hook
 * has no timer.
 */
export class HeldDemand {
  readonly #entries = new Map<string, Entry>();
  readonly #settling = new Set<TimerHandle>();
  readonly #sink: HeldStatsSink;
  readonly #clock: Clock;
  #timer: TimerHandle | undefined;

  constructor(sink: HeldStatsSink, clock: Clock) {
    this.#sink = sink;
    this.#clock = clock;
  }

  /** Starts counting one held request of `rev`; returns the hand-off, which stops counting it (once). */
  hold(rev: RevisionRef): () => void {
    const now = this.#clock.now();
    const key = revisionKey(rev);
    let e = this.#entries.get(key);
    if (!e) {
      e = {
        ref: { namespace: rev.namespace, name: rev.name },
        stats: new RequestStats(now),
        held: 0,
        owed: 1,
        second: undefined,
        firstAt: now,
        settle: undefined,
      };
      this.#entries.set(key, e);
    }
    if (e.second === undefined) this.#settle(key, e, now);
    e.held++;
    e.stats.requestIn(now);
    this.#timer ??= this.#clock.setTimeout(() => this.#tick(), PERIOD_MS);
    const entry = e;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      entry.held--;
      entry.stats.requestOut(this.#clock.now());
    };
  }

  /** Stops the reports (the hook is closing). */
  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    for (const t of this.#settling) this.#clock.clearTimeout(t);
    this.#settling.clear();
    this.#timer = undefined;
  }

  /** (Re)schedules `e`'s settle report for `SETTLE_MS` from `now`, no later than `SETTLE_MAX_MS` after its first. */
  #settle(key: string, e: Entry, now: number): void {
    const delay = Math.max(0, Math.min(SETTLE_MS, e.firstAt + SETTLE_MAX_MS - now));
    const t = this.#clock.setTimeout(() => {
      this.#settling.delete(t);
      // Only the latest: in a Worker a timer another request set may not be cancellable from this one.
      if (e.settle !== t || this.#entries.get(key) !== e) return;
      e.settle = undefined;
      const second = Math.floor(e.firstAt / 1000);
      e.second = second;
      this.#sink.send([this.#message(e, second, e.held)]);
    }, delay);
    if (e.settle !== undefined) {
      this.#clock.clearTimeout(e.settle);
      this.#settling.delete(e.settle);
    }
    e.settle = t;
    this.#settling.add(t);
  }

  #tick(): void {
    this.#timer = undefined;
    const second = Math.floor(this.#clock.now() / 1000);
    const batch: WireStatMessage[] = [];
    for (const [key, e] of this.#entries) {
      // Not settled yet, or reported in this second already: the period carries over to the next tick.
      if (e.second === undefined || e.second === second) continue;
      e.second = second;
      const m = this.#message(e, second);
      batch.push(m);
      // Forgotten once a whole period held nothing: a later request is a new cold start with its own poke.
      if (m.stat?.averageConcurrentRequests === 0 && e.held === 0) this.#entries.delete(key);
    }
    if (batch.length > 0) this.#sink.send(batch);
    if (this.#entries.size > 0) this.#timer = this.#clock.setTimeout(() => this.#tick(), PERIOD_MS);
  }

  /**
   * Closes `e`'s period now as a Stat stamped `timestamp` (Unix seconds) whose concurrency is
   * `level` when given (the settle report's count held now), else the period's time-weighted average.
   */
  #message(e: Entry, timestamp: number, level?: number): WireStatMessage {
    const r = e.stats.report(this.#clock.now());
    const owed = e.owed;
    e.owed = 0;
    const stat: Stat = {
      podName: this.#sink.podName,
      averageConcurrentRequests: Math.max((level ?? r.averageConcurrency) - owed, 0),
      averageProxiedConcurrentRequests: 0,
      requestCount: Math.max(r.requestCount - owed, 0),
      proxiedRequestCount: 0,
      processUptime: 0,
      timestamp,
    };
    return { namespace: e.ref.namespace, name: e.ref.name, stat };
  }
}
