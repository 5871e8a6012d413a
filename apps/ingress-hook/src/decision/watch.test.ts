import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { WarmCache } from "./warm-cache.js";
import { readEvents, watchEndpoints } from "./watch.js";

function streamOf(chunks: string[], keepOpen = false): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const ch of chunks) c.enqueue(enc.encode(ch));
      if (!keepOpen) c.close();
    },
  });
}

describe("readEvents (SSE)", () => {
  it("parses events split across chunks, skips comments, joins multi-line data", async () => {
    const seen: [string, string][] = [];
    await readEvents(
      streamOf([": ping\n\nevent: endp", 'oints\ndata: {"a":1}\n\n', "data: x\r\ndata: y\r\n\r\n"]),
      (e, d) => seen.push([e, d]),
    );
    expect(seen).toEqual([
      ["endpoints", '{"a":1}'],
      ["message", "x\ny"],
    ]);
  });
});

describe("watchEndpoints", () => {
  it("feeds the cache, keeps entries past the TTL while connected, and reconnects after a drop", async () => {
    const clock = new ManualClock(0);
    const cache = new WarmCache(1000);
    const states: string[] = [];
    let calls = 0;
    const ev = (eps: string[]) =>
      `event: endpoints\ndata: ${JSON.stringify({ namespace: "default", name: "hello", endpoints: eps, mode: "serve" })}\n\n`;
    const h = watchEndpoints({
      baseUrl: "http://activator.test",
      clock,
      cache,
      token: "t",
      fetch: async (req) => {
        calls++;
        expect(req.url).toBe("http://activator.test/v1/watch");
        expect(req.headers.get("authorization")).toBe("Bearer t");
        // first connection: one event then the stream ends; second: stays open
        return new Response(calls === 1 ? streamOf([ev(["a:1"])]) : streamOf([ev(["b:2"])], true), {
          headers: { "content-type": "text/event-stream" },
        });
      },
      onState: (s) => states.push(s),
    });
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(states).toEqual(["connected", "lost"]);
    expect(cache.get("default/hello", 999)?.endpoints).toEqual(["a:1"]);
    await clock.advance(100);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(states).toEqual(["connected", "lost", "connected"]);
    expect(cache.get("default/hello", 50_000)?.endpoints).toEqual(["b:2"]);
    h.stop();
  });
});
