import type { Gate } from "./gate.js";
import { RESOLVED } from "./semaphore.js";
import type { Waiter } from "./waiter-queue.js";

/** A gate that admits everyone and only counts them: containerConcurrency 0 in the queue-proxy (c.3). */
export class UnlimitedGate implements Gate {
  #running = 0;

  /** Always `Infinity`. */
  get capacity(): number {
    return Number.POSITIVE_INFINITY;
  }

  get inFlight(): number {
    return this.#running;
  }

  get waiting(): number {
    return 0;
  }

  tryAcquire(): boolean {
    this.#running++;
    return true;
  }

  acquire(_signal?: AbortSignal): Promise<void> {
    this.#running++;
    return RESOLVED;
  }

  enqueue(w: Waiter): boolean {
    this.#running++;
    w.granted();
    return true;
  }

  release(): void {
    if (this.#running === 0) throw new Error("UnlimitedGate: release without a matching acquire");
    this.#running--;
  }

  /** Nobody ever waits here. */
  rejectWaiting(_err: Error): void {}

  /** Ignored: there is no limit to change. */
  updateConcurrency(_capacity: number): void {}
}
