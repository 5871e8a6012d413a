import type { EndpointsEvent, RevisionId } from "@thaw/protocol";
import { RevisionSlot, type WarmEntry } from "./revision-slot.js";

export type { WarmEntry } from "./revision-slot.js";

/**
 * Ready endpoints per revision, fed by activation answers and by the activator's pushed readiness
 * changes, kept in one {@link RevisionSlot} per revision. An entry lives `ttlMs`; while the watch stream
 * that wrote it stays connected it needs no TTL, because any change would have been pushed. Pure: every
 * method takes `now`.
 */
export class WarmCache {
  readonly #ttlMs: number;
  readonly #slots = new Map<string, RevisionSlot>();
  #liveGeneration = 0;
  #nextGeneration = 1;

  constructor(ttlMs: number) {
    if (!(ttlMs >= 0)) throw new RangeError(`ttlMs must be >= 0, got ${ttlMs}`);
    this.#ttlMs = ttlMs;
  }

  /** The entry for `key` if it still has ready endpoints and is fresh at `now`. */
  get(key: string, now: number): WarmEntry | undefined {
    const s = this.#slots.get(key);
    return s && this.isWarm(s, now) ? s : undefined;
  }

  /** True when `slot` has ready endpoints that are fresh at `now` (the warm decision's whole test). */
  isWarm(slot: RevisionSlot, now: number): boolean {
    if (slot.podCount === 0) return false;
    if (slot.generation !== 0 && slot.generation === this.#liveGeneration) return true;
    return now < slot.expiresAt;
  }

  /** The slot of `key` if the cache has one (no entry is made). */
  peek(key: string): RevisionSlot | undefined {
    return this.#slots.get(key);
  }

  /** The slot of `ref`, made if needed and kept for good: a bound host table holds it. */
  pin(ref: RevisionId, key: string): RevisionSlot {
    const s = this.#slotOf(key, ref);
    s.pinned = true;
    return s;
  }

  /** Records the endpoints of a successful activation. */
  recordActivation(key: string, endpoints: readonly string[], now: number): void {
    const prev = this.#slots.get(key);
    // A live watch entry already says the same or newer; an activation answer must not demote it to a TTL.
    if (
      prev &&
      prev.generation !== 0 &&
      prev.generation === this.#liveGeneration &&
      prev.endpoints.length > 0
    ) {
      return;
    }
    this.#slotOf(key).write([...endpoints], prev?.mode ?? "serve", now + this.#ttlMs, 0);
  }

  /** Forgets `key` (an upstream failed, or the activator said the revision is unknown). */
  invalidate(key: string): void {
    const s = this.#slots.get(key);
    if (!s) return;
    s.clear();
    if (!s.pinned) this.#slots.delete(key);
  }

  /** Starts a watch connection: its events are authoritative until `watchLost`. Returns its generation. */
  watchConnected(): number {
    this.#liveGeneration = this.#nextGeneration++;
    return this.#liveGeneration;
  }

  /** The watch stream dropped: entries fall back to their TTL, counted from now. */
  watchLost(now: number): void {
    if (this.#liveGeneration === 0) return;
    for (const s of this.#slots.values()) {
      if (s.written && s.generation === this.#liveGeneration) s.expiresAt = now + this.#ttlMs;
    }
    this.#liveGeneration = 0;
  }

  /** Applies one pushed `endpoints` event from the watch connection `generation`. */
  applyEvent(event: EndpointsEvent, generation: number, now: number): void {
    const key = `${event.namespace}/${event.name}`;
    const ref = { namespace: event.namespace, name: event.name };
    this.#slotOf(key, ref).write([...event.endpoints], event.mode, now + this.#ttlMs, generation);
  }

  /** Number of revisions with an entry (fresh or not); for status and tests. */
  get size(): number {
    let n = 0;
    for (const s of this.#slots.values()) if (s.written) n++;
    return n;
  }

  #slotOf(key: string, ref?: RevisionId): RevisionSlot {
    let s = this.#slots.get(key);
    if (!s) {
      s = ref ? new RevisionSlot(ref, key) : RevisionSlot.forKey(key);
      this.#slots.set(key, s);
    }
    return s;
  }
}
