import { describe, expect, it } from "vitest";
import { Waiter, WaiterQueue } from "./waiter-queue.js";

/** A waiter that logs what the queue told it. */
class Logged extends Waiter {
  constructor(
    readonly name: string,
    readonly log: string[],
  ) {
    super();
  }
  granted(): void {
    this.log.push(this.name);
  }
  refused(err: Error): void {
    this.log.push(`${this.name}:${err.message}`);
  }
}

describe("WaiterQueue with callback waiters", () => {
  it("is FIFO, and cancel unlinks from anywhere, running the queue's onCancel once", () => {
    let cancels = 0;
    const q = new WaiterQueue(() => cancels++);
    const log: string[] = [];
    const ws = ["a", "b", "c", "d"].map((n) => new Logged(n, log));
    for (const w of ws) q.push(w);
    expect(ws[1]?.cancel()).toBe(true);
    expect(ws[3]?.cancel()).toBe(true);
    expect(ws[3]?.cancel()).toBe(false);
    expect(cancels).toBe(2);
    expect(q.size).toBe(2);
    while (q.wakeHead()) {}
    expect(log).toEqual(["a", "c"]);
    expect(ws[0]?.cancel()).toBe(false);
    expect(cancels).toBe(2);
  });

  it("refuses every waiter on teardown, and a waiter can wait again once out", () => {
    const q = new WaiterQueue();
    const log: string[] = [];
    const w = new Logged("a", log);
    q.push(w);
    expect(() => q.push(w)).toThrow(/already queued/);
    q.rejectAll(new Error("gone"));
    expect(log).toEqual(["a:gone"]);
    q.push(w);
    expect(q.shift()).toBe(w);
    expect(q.size).toBe(0);
  });

  it("keeps the promise form alongside: a fired signal rejects it and runs the cancel hook", async () => {
    let cancels = 0;
    const q = new WaiterQueue(() => cancels++);
    const ac = new AbortController();
    const p = q.wait(ac.signal);
    const log: string[] = [];
    q.push(new Logged("b", log));
    ac.abort();
    await expect(p).rejects.toMatchObject({ code: "ERR_CANCELLED" });
    expect([cancels, q.size]).toEqual([1, 1]);
    q.wakeHead();
    expect(log).toEqual(["b"]);
  });
});
