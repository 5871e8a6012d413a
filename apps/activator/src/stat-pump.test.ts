import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { StatPump, type StatTransport } from "./stat-pump.js";

const msg = (name: string) => ({ namespace: "d", name });
const encode = (ms: readonly { name: string }[]) => new TextEncoder().encode(ms.map((m) => m.name).join(","));
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

class FlakyTransport implements StatTransport {
  up = true;
  got: string[] = [];
  async send(bytes: Uint8Array): Promise<void> {
    if (!this.up) throw new Error("connection refused");
    this.got.push(dec(bytes));
  }
}

describe("StatPump", () => {
  it("sends in order without the caller waiting", async () => {
    const clock = new ManualClock();
    const t = new FlakyTransport();
    const pump = new StatPump({ clock, transport: t, encode });
    pump.send([msg("a")]);
    pump.send([msg("b"), msg("c")]);
    await clock.advance(0);
    expect(t.got).toEqual(["a", "b,c"]);
  });

  it("sends text frames (notes) in order with the stats, and retries them the same way; a link without text drops them", async () => {
    const clock = new ManualClock();
    const t = new FlakyTransport();
    const texts = Object.assign(t, {
      async sendText(text: string): Promise<void> {
        if (!t.up) throw new Error("connection refused");
        t.got.push(`text:${text}`);
      },
    });
    const pump = new StatPump({ clock, transport: texts, encode, backoffMs: 100 });
    t.up = false;
    pump.send([msg("a")]);
    pump.note("n1");
    pump.send([msg("b")]);
    await clock.advance(0);
    t.up = true;
    await clock.advance(100);
    expect(t.got).toEqual(["a", "text:n1", "b"]);
    // HTTP stats (no sendText): a note is dropped, the stats go on.
    const plain = new FlakyTransport();
    const http = new StatPump({ clock, transport: plain, encode });
    http.note("n2");
    http.send([msg("c")]);
    await clock.advance(0);
    expect(plain.got).toEqual(["c"]);
    expect(http.pending).toBe(0);
  });

  it("retries with doubling backoff and reports unhealthy meanwhile", async () => {
    const clock = new ManualClock();
    const t = new FlakyTransport();
    t.up = false;
    const pump = new StatPump({ clock, transport: t, encode, backoffMs: 100 });
    pump.send([msg("a")]);
    await clock.advance(0);
    expect(pump.health()).toEqual({ ok: false, reason: "stats connection: connection refused" });
    await clock.advance(100); // retry 1 fails, next in 200
    await clock.advance(150);
    t.up = true;
    expect(t.got).toEqual([]);
    await clock.advance(50);
    expect(t.got).toEqual(["a"]);
    expect(pump.health()).toEqual({ ok: true });
    // The first send and retry 1 failed; the link came back once.
    expect({ failures: pump.failures, reconnects: pump.reconnects }).toEqual({ failures: 2, reconnects: 1 });
  });

  it("keeps at most maxPending batches, dropping the oldest", async () => {
    const clock = new ManualClock();
    const t = new FlakyTransport();
    t.up = false;
    const pump = new StatPump({ clock, transport: t, encode, maxPending: 2, backoffMs: 10 });
    for (const n of ["a", "b", "c", "d"]) pump.send([msg(n)]);
    expect(pump.pending).toBe(2);
    expect(pump.dropped).toBe(2);
    t.up = true;
    await clock.advance(10);
    expect(t.got).toEqual(["c", "d"]);
  });
});
