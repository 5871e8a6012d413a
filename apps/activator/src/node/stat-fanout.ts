import type { WireStatMessage } from "@thaw/protocol";
import type { StatSink } from "../ports.js";
import type { StatPump } from "../stat-pump.js";

/**
 * Stats to every autoscaler replica: one StatPump per replica URL, kept in step with the replicas the
 * autoscaler Service lists. Every replica gets the same reports, so the one holding the leader Lease
 * decides on all of them, and a follower that takes over has been deciding on them all along.
 */
export class StatFanout implements StatSink {
  readonly #make: (url: string) => StatPump;
  #pumps = new Map<string, StatPump>();
  #closed = false;

  constructor(make: (url: string) => StatPump) {
    this.#make = make;
  }

  /** The autoscaler replicas now (`ws://ip:port` URLs); pumps of replicas gone are closed. */
  setTargets(urls: readonly string[]): void {
    if (this.#closed) return;
    const next = new Map<string, StatPump>();
    for (const u of urls) next.set(u, this.#pumps.get(u) ?? this.#make(u));
    for (const [u, p] of this.#pumps) if (!next.has(u)) p.close();
    this.#pumps = next;
  }

  /** Replica URLs sent to now. */
  get targets(): string[] {
    return [...this.#pumps.keys()];
  }

  send(messages: WireStatMessage[]): void {
    for (const p of this.#pumps.values()) p.send(messages);
  }

  /** One text frame to every replica (the leader keeps the dashboard's record; any may lead next). */
  note(text: string): void {
    for (const p of this.#pumps.values()) p.note(text);
  }

  /** Healthy while at least one replica takes stats (or none is known yet: nothing to fail). */
  health(): { ok: true } | { ok: false; reason: string } {
    if (this.#pumps.size === 0) return { ok: true };
    let last: { ok: false; reason: string } | undefined;
    for (const p of this.#pumps.values()) {
      const h = p.health();
      if (h.ok) return h;
      last = h;
    }
    return last ?? { ok: true };
  }

  close(): void {
    this.#closed = true;
    for (const p of this.#pumps.values()) p.close();
    this.#pumps.clear();
  }
}
