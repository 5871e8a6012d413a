/** The bounds of a {@link BodyBudget}, in bytes. */
export interface BodyBudgetLimits {
  /** All bodies kept for one revision at once (default 16 MiB). */
  revisionBytes: number;
  /** All bodies kept by the process at once, every revision together (default 64 MiB). */
  processBytes: number;
}

/** 16 MiB per revision, 64 MiB per process: a held burst costs at most this, whatever `maxQueue` is. */
export const DEFAULT_BODY_BUDGET: Readonly<BodyBudgetLimits> = {
  revisionBytes: 16 * 1024 * 1024,
  processBytes: 64 * 1024 * 1024,
};

/** The bytes one request's body keeps in a {@link BodyBudget}. */
export interface BodyAccount {
  /** Takes `bytes` more; false, taking nothing, when the revision's or the process's total would pass its bound. */
  take(bytes: number): boolean;
  /**
   * Gives every byte taken back and closes the account: a later `take` is refused (a body still being read
   * for a request that already ended streams), a later `release` does nothing.
   */
  release(): void;
}

/**
 * The memory that request bodies kept for a replay may use, in total per revision and per process, on top
 * of each request's own cap (`bodyBufferBytes`). Without it a held burst costs `maxQueue` × that cap (issue
 * 26: 300 × 1 MiB took an activator to 560 MB). A body that does not fit is not refused: it streams once,
 * like one over the per-request cap, since every path that holds a body can forward it unbuffered; it only
 * loses the replay on another pod after a forward that had sent some of it.
 */
export class BodyBudget {
  readonly #limits: BodyBudgetLimits;
  readonly #byRevision = new Map<string, number>();
  #used = 0;

  constructor(limits: Partial<BodyBudgetLimits> = {}) {
    this.#limits = { ...DEFAULT_BODY_BUDGET, ...limits };
  }

  /** An empty account for one request to `revision` (any stable key, e.g. `namespace/name`). */
  open(revision: string): BodyAccount {
    let held = 0;
    let closed = false;
    return {
      take: (bytes) => {
        if (closed || !this.#fits(revision, bytes)) return false;
        held += bytes;
        this.#add(revision, bytes);
        return true;
      },
      release: () => {
        closed = true;
        if (held === 0) return;
        this.#add(revision, -held);
        held = 0;
      },
    };
  }

  /** Bytes kept now, by every revision together. */
  get used(): number {
    return this.#used;
  }

  /** Bytes kept now for `revision`. */
  usedBy(revision: string): number {
    return this.#byRevision.get(revision) ?? 0;
  }

  #fits(revision: string, bytes: number): boolean {
    return (
      this.#used + bytes <= this.#limits.processBytes &&
      this.usedBy(revision) + bytes <= this.#limits.revisionBytes
    );
  }

  #add(revision: string, bytes: number): void {
    this.#used += bytes;
    const now = this.usedBy(revision) + bytes;
    if (now === 0) this.#byRevision.delete(revision);
    else this.#byRevision.set(revision, now);
  }
}
