/** Joins concurrent calls for one key onto one promise; the slot frees when it settles. */
export class SingleFlight<T> {
  readonly #flights = new Map<string, Promise<T>>();

  /** Runs `fn` unless a call for `key` is already in flight, whose promise is returned instead. */
  run(key: string, fn: () => Promise<T>): Promise<T> {
    const existing = this.#flights.get(key);
    if (existing) return existing;
    const p = fn().finally(() => {
      if (this.#flights.get(key) === p) this.#flights.delete(key);
    });
    this.#flights.set(key, p);
    return p;
  }

  /** Number of keys in flight. */
  get size(): number {
    return this.#flights.size;
  }
}
