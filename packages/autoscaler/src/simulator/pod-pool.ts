import { TimeHeap } from "./heap.js";
import type { TraceRequest } from "./trace.js";

interface Pod {
  id: number;
  readyAt: number;
  inflight: number;
  state: "starting" | "ready" | "draining" | "gone";
}

/**
 * The simulator's idealised pods: each becomes ready `startupDelayMs` after it is asked for and serves up to
 * `containerConcurrency` requests (0 = unlimited); requests wait in one FIFO queue while no pod has room.
 * Removed pods stop taking requests and finish the ones they hold.
 */
export class PodPool {
  private readonly pods: Pod[] = [];
  private ready: Pod[] = [];
  private starting: Pod[] = [];
  private readonly startQueue: Pod[] = [];
  private startHead = 0;
  private freeSlots = 0;
  private rr = 0;
  private readonly queue: number[] = [];
  private qHead = 0;
  private readonly completions = new TimeHeap();
  /** Requests being served (including on draining pods). */
  inflight = 0;
  /** Time each request spent queued, by trace index. */
  readonly waits: Float64Array;

  constructor(
    private readonly trace: readonly TraceRequest[],
    private readonly cc: number,
    private readonly startupDelayMs: number,
    initialReady: number,
  ) {
    this.waits = new Float64Array(trace.length);
    for (let i = 0; i < initialReady; i++) this.add(0, "ready");
  }

  /** Ready pods that take requests. */
  get readyCount(): number {
    return this.ready.length;
  }

  /** Pods asked for: starting or ready, not draining. */
  get liveCount(): number {
    return this.ready.length + this.starting.length;
  }

  /** Requests waiting for a pod. */
  get queued(): number {
    return this.queue.length - this.qHead;
  }

  /** When the next starting pod becomes ready (Infinity if none). */
  nextReadyAt(): number {
    return this.startHead < this.startQueue.length
      ? (this.startQueue[this.startHead] as Pod).readyAt
      : Number.POSITIVE_INFINITY;
  }

  /** When the next request finishes (Infinity if none). */
  nextCompletionAt(): number {
    return this.completions.peekTime();
  }

  /** Marks the next starting pod ready; returns false when it had been removed meanwhile. */
  promoteNext(now: number): boolean {
    const pod = this.startQueue[this.startHead++] as Pod;
    if (pod.state !== "starting") return false;
    pod.state = "ready";
    this.starting = this.starting.filter((p) => p !== pod);
    this.ready.push(pod);
    this.freeSlots += this.cc;
    this.dispatch(now);
    return true;
  }

  /** Queues request `idx` and serves it at once if a pod has room. */
  arrive(idx: number, now: number): void {
    this.queue.push(idx);
    this.dispatch(now);
  }

  /** Finishes the earliest request and lets a queued one take its place. */
  completeNext(now: number): void {
    const pod = this.pods[this.completions.pop()] as Pod;
    pod.inflight--;
    this.inflight--;
    if (pod.state === "ready" && this.cc > 0) this.freeSlots++;
    if (pod.state === "draining" && pod.inflight === 0) pod.state = "gone";
    this.dispatch(now);
  }

  /** Asks for `target` pods: starts new ones, or removes starting pods first and then the least busy. */
  setReplicas(target: number, now: number): void {
    const live = this.liveCount;
    for (let i = live; i < target; i++) this.add(now + this.startupDelayMs, "starting");
    let drop = live - target;
    while (drop > 0 && this.starting.length > 0) {
      (this.starting.pop() as Pod).state = "gone";
      drop--;
    }
    if (drop > 0) {
      const victims = new Set([...this.ready].sort((a, b) => a.inflight - b.inflight).slice(0, drop));
      for (const p of victims) {
        if (this.cc > 0) this.freeSlots -= this.cc - p.inflight;
        p.state = p.inflight > 0 ? "draining" : "gone";
      }
      this.ready = this.ready.filter((p) => !victims.has(p));
      this.rr = 0;
    }
  }

  private add(readyAt: number, state: "starting" | "ready"): void {
    const p: Pod = { id: this.pods.length, readyAt, inflight: 0, state };
    this.pods.push(p);
    if (state === "ready") {
      this.ready.push(p);
      this.freeSlots += this.cc;
    } else {
      this.starting.push(p);
      this.startQueue.push(p);
    }
  }

  private dispatch(now: number): void {
    const { cc } = this;
    while (this.qHead < this.queue.length && this.ready.length > 0 && (cc === 0 || this.freeSlots > 0)) {
      let pod: Pod | undefined;
      const n = this.ready.length;
      for (let k = 0; k < n; k++) {
        const p = this.ready[(this.rr + k) % n] as Pod;
        if (cc === 0 || p.inflight < cc) {
          pod = p;
          this.rr = (this.rr + k + 1) % n;
          break;
        }
      }
      if (!pod) return;
      const idx = this.queue[this.qHead++] as number;
      const req = this.trace[idx] as TraceRequest;
      this.waits[idx] = now - req.arrivalMs;
      pod.inflight++;
      this.inflight++;
      if (cc > 0) this.freeSlots--;
      this.completions.push(now + req.durationMs, pod.id);
    }
    // Drop served entries now and then so the queue array does not grow with the trace.
    if (this.qHead > 4096 && this.qHead * 2 > this.queue.length) {
      this.queue.splice(0, this.qHead);
      this.qHead = 0;
    }
  }
}
