/** Which requests a fault applies to. */
export interface FaultMatch {
  /** HTTP method (any when unset). */
  method?: string;
  /** Exact path, or a pattern tested against the path (no query). */
  path: string | RegExp;
  /** Only watch requests (true) or only non-watch requests (false); both when unset. */
  watch?: boolean;
}

/** What the matched requests get instead of an answer. */
export interface Fault {
  /** 403, 409, 429, 500, 503 ... answered with the matching Status reason. */
  status: number;
  /** How many matching requests fail (default 1). */
  count?: number;
  /** Sent as `Retry-After` (and `details.retryAfterSeconds`). */
  retryAfterSeconds?: number;
  message?: string;
}

interface Armed extends FaultMatch, Fault {
  left: number;
}

/** The emulator's injected failures: the next N requests to a path answer with an error status. */
export class Faults {
  #armed: Armed[] = [];

  /** Arms a fault. */
  add(match: FaultMatch, fault: Fault): void {
    this.#armed.push({ ...match, ...fault, left: fault.count ?? 1 });
  }

  /** Takes the first armed fault matching this request, counting it down. */
  take(method: string, path: string, watch: boolean): Armed | undefined {
    const f = this.#armed.find(
      (a) =>
        a.left > 0 &&
        (a.method === undefined || a.method.toUpperCase() === method) &&
        (a.watch === undefined || a.watch === watch) &&
        (typeof a.path === "string" ? a.path === path : a.path.test(path)),
    );
    if (!f) return undefined;
    f.left--;
    this.#armed = this.#armed.filter((a) => a.left > 0);
    return f;
  }

  /** Faults not used up yet. */
  get pending(): number {
    return this.#armed.reduce((n, a) => n + a.left, 0);
  }
}
