import type { EndpointsEvent } from "@thaw/protocol";

/** What the hook knows about one revision's ready pods. */
export interface WarmEntry {
  readonly endpoints: readonly string[];
  readonly mode: "proxy" | "serve";
  /** Time after which the entry is stale unless the watch stream vouches for it. */
  readonly expiresAt: number;
  /** Watch generation that wrote it; 0 for activation answers. */
  readonly generation: number;
}

/**
 * Ready endpoints per revision, fed by activation answers and by the activator's pushed readiness
 * changes. An entry lives `ttlMs`; while the watch stream that wrote it stays connected it needs no TTL,
 * because any change would have been pushed. Pure: every method takes `now`.
 */
export class WarmCache {
  readonly #ttlMs: number;
  readonly #entries = new Map<string, WarmEntry>();
  #liveGeneration = 0;
  #nextGeneration = 1;

  constructor(ttlMs: number) {
    if (!(ttlMs >= 0)) throw new RangeError(`ttlMs must be >= 0, got ${ttlMs}`);
    this.#ttlMs = ttlMs;
  }

  /** The entry for `key` if it still has ready endpoints and is fresh at `now`. */
  get(key: string, now: number): WarmEntry | undefined {
    const e = this.#entries.get(key);
    if (!e || e.endpoints.length === 0) return undefined;
    if (e.generation !== 0 && e.generation === this.#liveGeneration) return e;
    return now < e.expiresAt ? e : undefined;
  }

  /** Records the endpoints of a successful activation. */
  recordActivation(key: string, endpoints: readonly string[], now: number): void {
    const prev = this.#entries.get(key);
    // A live watch entry already says the same or newer; an activation answer must not demote it to a TTL.
    if (
      prev &&
      prev.generation !== 0 &&
      prev.generation === this.#liveGeneration &&
      prev.endpoints.length > 0
    ) {
      return;
    }
    this.#entries.set(key, {
      endpoints: [...endpoints],
      mode: prev?.mode ?? "serve",
      expiresAt: now + this.#ttlMs,
      generation: 0,
    });
  }

  /** Forgets `key` (an upstream failed, or the activator said the revision is unknown). */
  invalidate(key: string): void {
    this.#entries.delete(key);
  }

  /** Starts a watch connection: its events are authoritative until `watchLost`. Returns its generation. */
  watchConnected(): number {
    this.#liveGeneration = this.#nextGeneration++;
    return this.#liveGeneration;
  }

  /** The watch stream dropped: entries fall back to their TTL, counted from now. */
  watchLost(now: number): void {
    if (this.#liveGeneration === 0) return;
    for (const [k, e] of this.#entries) {
      if (e.generation === this.#liveGeneration) this.#entries.set(k, { ...e, expiresAt: now + this.#ttlMs });
    }
    this.#liveGeneration = 0;
  }

  /** Applies one pushed `endpoints` event from the watch connection `generation`. */
  applyEvent(event: EndpointsEvent, generation: number, now: number): void {
    const key = `${event.namespace}/${event.name}`;
    this.#entries.set(key, {
      endpoints: [...event.endpoints],
      mode: event.mode,
      expiresAt: now + this.#ttlMs,
      generation,
    });
  }

  /** Number of revisions with an entry (fresh or not); for status and tests. */
  get size(): number {
    return this.#entries.size;
  }
}
