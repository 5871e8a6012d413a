/** One caller of a gate in a property test, and what became of it. */
export interface Caller<T> {
  id: number;
  state: "waiting" | "running" | "done" | "rejected";
  ac: AbortController | undefined;
  /** What the gate handed out (a pod tracker, or nothing for a plain breaker). */
  lease?: T;
}

/**
 * The callers of a property test over a gate (breaker or throttler): start them in arrival order, finish or
 * cancel one picked by index, and remember the order in which they were admitted.
 */
export class Callers<T> {
  readonly all: Caller<T>[] = [];
  /** Ids in the order the gate admitted them. */
  readonly admitted: number[] = [];

  /** Starts a caller: `acquire` is the gate's, `onReject` sees why it was refused. */
  start(
    cancellable: boolean,
    acquire: (signal: AbortSignal | undefined) => Promise<T>,
    onReject: (err: unknown) => void = () => {},
  ): void {
    const c: Caller<T> = {
      id: this.all.length,
      state: "waiting",
      ac: cancellable ? new AbortController() : undefined,
    };
    this.all.push(c);
    acquire(c.ac?.signal).then(
      (lease) => {
        c.state = "running";
        c.lease = lease;
        this.admitted.push(c.id);
      },
      (err: unknown) => {
        onReject(err);
        c.state = "rejected";
      },
    );
  }

  /** Marks the `pick`-th running caller (modulo their number) done and returns it; none when none runs. */
  finish(pick: number): Caller<T> | undefined {
    const running = this.running;
    const c = running[pick % Math.max(1, running.length)];
    if (c) c.state = "done";
    return c;
  }

  /** Aborts the `pick`-th cancellable waiter (modulo their number). */
  cancel(pick: number): void {
    const waiting = this.all.filter((c) => c.state === "waiting" && c.ac);
    waiting[pick % Math.max(1, waiting.length)]?.ac?.abort();
  }

  get running(): Caller<T>[] {
    return this.all.filter((c) => c.state === "running");
  }

  get waitingCount(): number {
    return this.all.filter((c) => c.state === "waiting").length;
  }
}

/** Lets `ticks` rounds of promise callbacks run. */
export async function settle(ticks: number): Promise<void> {
  for (let i = 0; i < ticks; i++) await Promise.resolve();
}
