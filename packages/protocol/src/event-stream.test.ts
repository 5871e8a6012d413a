import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { eventStreamResponse } from "./event-stream.js";

async function readSome(res: Response, chunks: number): Promise<string> {
  const reader = res.body!.getReader();
  let text = "";
  for (let i = 0; i < chunks; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text;
}

describe("eventStreamResponse", () => {
  it("sends the feed's events as SSE, pings, and unsubscribes when the client leaves", async () => {
    const clock = new ManualClock();
    const ac = new AbortController();
    let later: ((event: string, data: unknown) => void) | undefined;
    let unsubscribed = 0;
    const res = eventStreamResponse({
      clock,
      signal: ac.signal,
      pingMs: 1000,
      feed: (emit) => {
        emit("endpoints", { name: "a" });
        later = emit;
        return () => unsubscribed++;
      },
    });
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await readSome(res, 1)).toBe('event: endpoints\ndata: {"name":"a"}\n\n');
    later?.("endpoints", { name: "b" });
    await clock.advance(1000);
    expect(await readSome(res, 2)).toBe('event: endpoints\ndata: {"name":"b"}\n\n: ping\n\n');
    ac.abort();
    expect(unsubscribed).toBe(1);
    expect(clock.pending).toBe(0);
  });
});
