/**
 * One healthy destination of a revision and the requests this activator has in flight to it (d.2).
 * With a positive `capacity` it admits at most that many; capacity 0 (containerConcurrency 0) admits
 * everyone and only counts.
 */
export class PodTracker {
  /** `host:port` of the pod (or service) requests are sent to. */
  readonly dest: string;
  /** Per-pod limit; 0 = unlimited. */
  capacity: number;
  /** Requests in flight to this pod (the "weight" of the random-choice policy). */
  inFlight = 0;

  constructor(dest: string, capacity: number) {
    this.dest = dest;
    this.capacity = capacity;
  }

  /** Knative reports an unlimited tracker's capacity as 1. */
  get reportedCapacity(): number {
    return this.capacity === 0 ? 1 : this.capacity;
  }

  /** Takes a slot if one is free now. */
  tryReserve(): boolean {
    if (this.capacity !== 0 && this.inFlight >= this.capacity) return false;
    this.inFlight++;
    return true;
  }

  /** Gives a slot back. */
  release(): void {
    if (this.inFlight === 0) throw new Error(`PodTracker ${this.dest}: release without a reservation`);
    this.inFlight--;
  }
}
