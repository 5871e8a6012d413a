import { parseRevisionKey, type RevisionId } from "@thaw/protocol";
import type { Allow } from "./decision.js";
import type { PodChooser } from "./upstream-picker.js";

const NO_ENDPOINTS: readonly string[] = Object.freeze([]);

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
 * Everything a warm decision reads about one revision, in one object: its warm entry, its pod chooser
 * and the allow answers it gives. A bound host table points at slots directly, so a warm request costs
 * one table read and then field reads of this object; nothing is keyed, joined or allocated per request.
 * The WarmCache owns slots and updates them in place.
 */
export class RevisionSlot implements WarmEntry {
  // The fields a warm decision reads come first, so they share the object's first cache line.
  /** Watch generation that wrote the entry; 0 for activation answers. */
  generation = 0;
  /** `endpoints.length`, kept here so the warm test does not touch the array. */
  podCount = 0;
  mode: "proxy" | "serve" = "serve";
  /** With exactly one pod every policy names it: its warm allow, handed out as is (Allow is readonly). Cleared by each write. */
  onlyAllow: Allow | undefined = undefined;
  /** The endpoints array the prepared answers were built for (identity is the change test). */
  preparedFor: readonly string[] | undefined = undefined;
  endpoints: readonly string[] = NO_ENDPOINTS;
  // A double from the start: now + ttl is no small integer, and a field that changes kind re-shapes every slot.
  expiresAt = Number.NEGATIVE_INFINITY;
  readonly ref: RevisionId;
  readonly key: string;
  /** An activation answer or watch event wrote the entry, and no invalidation has cleared it since. */
  written = false;
  /** A bound table points here: invalidation empties the slot instead of dropping it from the cache. */
  pinned = false;
  /** Picks among several pods; kept across endpoint changes (round robin's position carries over). */
  chooser: PodChooser | undefined = undefined;
  /** The warm allow for each endpoint, by index. */
  allows: readonly Allow[] = [];
  /** The warm allow through the activator (proxy mode), built on first use. */
  viaActivator: Allow | undefined = undefined;

  constructor(ref: RevisionId, key: string) {
    this.ref = ref;
    this.key = key;
  }

  /** A slot for a key with no ref at hand (an activation answer recorded by key). */
  static forKey(key: string): RevisionSlot {
    const ref = parseRevisionKey(key) ?? { namespace: "", name: key };
    return new RevisionSlot(ref, key);
  }

  /** Writes a warm entry. */
  write(endpoints: readonly string[], mode: "proxy" | "serve", expiresAt: number, generation: number): void {
    this.endpoints = endpoints;
    this.onlyAllow = undefined;
    this.preparedFor = undefined;
    this.podCount = endpoints.length;
    this.mode = mode;
    this.expiresAt = expiresAt;
    this.generation = generation;
    this.written = true;
  }

  /** Forgets the entry (the chooser's state, e.g. round robin's position, carries over). */
  clear(): void {
    this.write(NO_ENDPOINTS, "serve", 0, 0);
    this.written = false;
  }
}
