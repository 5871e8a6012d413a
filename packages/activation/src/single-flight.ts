import type { Clock } from "@thaw/clock";
import { deadlineSignal } from "./deadline-signal.js";
import { WaiterQueue } from "./waiter-queue.js";

/** How activations are started. */
export interface SingleFlightOptions {
  clock: Clock;
  /** Starts scaling `revision` up from zero; called once per flight. */
  poke: (revision: string) => void | Promise<void>;
  /** Told when a poke fails (the flight goes on: a later update can still make it ready). */
  onPokeError?: (revision: string, err: unknown) => void;
}

/** Options of one waiter. */
export interface ActivationWait {
  /** This waiter's own budget (see `requestDeadlineMs`). */
  timeoutMs: number;
  /** Fires when this waiter's client goes away. */
  signal?: AbortSignal;
}

/** What a waiter gets once its revision has ready destinations. */
export interface ActivationResult {
  endpoints: string[];
  /** True when the waiter had to wait for the revision to become ready. */
  coldStart: boolean;
  waitedMs: number;
}

interface RevisionState {
  endpoints: string[];
  /** Waiters of the current flight; undefined when no flight is in progress. */
  flight: WaiterQueue | undefined;
}

/**
 * Single-flight activation: for a revision without ready destinations the first waiter pokes the
 * scaler once and every later waiter joins that flight. Each waiter leaves on its own deadline or
 * signal without touching the others; when destinations appear, waiters are answered oldest first.
 */
export class SingleFlightActivator {
  readonly #o: SingleFlightOptions;
  readonly #revisions = new Map<string, RevisionState>();

  constructor(opts: SingleFlightOptions) {
    this.#o = opts;
  }

  /** Ready destinations known for `revision`. */
  endpoints(revision: string): string[] {
    return this.#revisions.get(revision)?.endpoints ?? [];
  }

  /** Waiters currently in the revision's flight (0 when none is in progress). */
  waiting(revision: string): number {
    return this.#revisions.get(revision)?.flight?.size ?? 0;
  }

  /** Records the revision's ready destinations (from the prober); non-empty answers the flight. */
  update(revision: string, endpoints: readonly string[]): void {
    const st = this.#state(revision);
    st.endpoints = [...endpoints];
    if (st.endpoints.length === 0 || !st.flight) return;
    const flight = st.flight;
    st.flight = undefined;
    while (flight.wakeHead()) {}
  }

  /** Ends the revision's flight, if any, refusing every waiter in it with `err` (the revision is failing). */
  fail(revision: string, err: Error): void {
    const st = this.#revisions.get(revision);
    const flight = st?.flight;
    if (!st || !flight) return;
    st.flight = undefined;
    flight.rejectAll(err);
  }

  /**
   * Resolves with the revision's ready destinations, poking the scaler if this waiter opens a flight.
   * Rejects with DeadlineExceededError after `timeoutMs`, or CancelledError when `signal` fires.
   */
  async wait(revision: string, w: ActivationWait): Promise<ActivationResult> {
    const { clock } = this.#o;
    const start = clock.now();
    const st = this.#state(revision);
    if (st.endpoints.length > 0) return { endpoints: st.endpoints, coldStart: false, waitedMs: 0 };
    let flight = st.flight;
    if (!flight) {
      flight = new WaiterQueue();
      st.flight = flight;
      this.#poke(revision);
    }
    const d = deadlineSignal(clock, w.timeoutMs, w.signal);
    try {
      await flight.wait(d.signal);
    } finally {
      d.dispose();
    }
    return { endpoints: st.endpoints, coldStart: true, waitedMs: clock.now() - start };
  }

  #poke(revision: string): void {
    try {
      const p = this.#o.poke(revision);
      if (p) p.catch((err: unknown) => this.#o.onPokeError?.(revision, err));
    } catch (err) {
      this.#o.onPokeError?.(revision, err);
    }
  }

  #state(revision: string): RevisionState {
    let st = this.#revisions.get(revision);
    if (!st) {
      st = { endpoints: [], flight: undefined };
      this.#revisions.set(revision, st);
    }
    return st;
  }
}
