import type { EdgeScaling, EdgeTick } from "../edge-scaling.js";

/** The decider's tick (Knative's 2 s). */
export const TICK_MS = 2000;

/**
 * The edge decider's clock inside a Durable Object: ticks EdgeScaling every 2 s while the revision has
 * replicas or load, and sends each changed count through `send` (the scale webhook). Alarms call `due`.
 */
export class DeciderLoop {
  readonly #scaling: EdgeScaling;
  #nextTick: number;
  /** Replica counts sent, oldest first (tests and status read it). */
  readonly sent: number[] = [];

  constructor(scaling: EdgeScaling, now: number) {
    this.#scaling = scaling;
    this.#nextTick = now + TICK_MS;
  }

  /** The scaling state (requests in and out, gateway load, wakes). */
  get scaling(): EdgeScaling {
    return this.#scaling;
  }

  /** When the next tick is due. */
  get nextTick(): number {
    return this.#nextTick;
  }

  /** True while there is something to decide: replicas asked for, or load waiting to be counted. */
  busy(held: number): boolean {
    return this.#scaling.replicas > 0 || held > 0;
  }

  /** One tick now; a changed count is sent (a failed send is logged, the next change is sent anyway). */
  async tick(
    now: number,
    readyPods: number,
    send: (replicas: number, reason: string) => Promise<void>,
  ): Promise<EdgeTick> {
    this.#nextTick = now + TICK_MS;
    const t = this.#scaling.tick(now, readyPods);
    if (t.changed) {
      this.sent.push(t.replicas);
      await send(t.replicas, t.reason).catch((err: unknown) =>
        console.warn("thaw: scale webhook failed", String(err)),
      );
    }
    return t;
  }
}
