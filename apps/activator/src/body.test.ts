import { describe, expect, it } from "vitest";
import { prepareBody } from "./body.js";

function streamOf(...parts: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(c) {
      for (const p of parts) c.enqueue(enc.encode(p));
      c.close();
    },
  });
}

async function text(b: Uint8Array | ReadableStream<Uint8Array> | null): Promise<string> {
  return b === null ? "" : new Response(b).text();
}

describe("prepareBody", () => {
  it("no body", async () => {
    const p = await prepareBody(null, new Headers(), 10);
    expect(p.mode).toBe("none");
    expect(p.next()).toBeNull();
  });

  it.each<{ name: string; parts: string[]; headers: Record<string, string>; cap: number; mode: string }>([
    {
      name: "chunked body under the cap is buffered",
      parts: ["ab", "cd"],
      headers: {},
      cap: 4,
      mode: "buffered",
    },
    {
      name: "declared length at the cap is buffered",
      parts: ["abcd"],
      headers: { "content-length": "4" },
      cap: 4,
      mode: "buffered",
    },
    {
      name: "declared length over the cap streams",
      parts: ["abcde"],
      headers: { "content-length": "5" },
      cap: 4,
      mode: "stream",
    },
    {
      name: "chunked body over the cap streams",
      parts: ["abc", "de", "f"],
      headers: {},
      cap: 4,
      mode: "stream",
    },
  ])("$name and keeps every byte", async ({ parts, headers, cap, mode }) => {
    const p = await prepareBody(streamOf(...parts), new Headers(headers), cap);
    expect(p.mode).toBe(mode);
    expect(p.touched()).toBe(false);
    expect(await text(p.next())).toBe(parts.join(""));
    if (mode === "buffered") expect(await text(p.next())).toBe(parts.join(""));
    else expect(p.touched()).toBe(true);
  });

  it("an empty body with Content-Length: 0 is buffered (replayable)", async () => {
    const p = await prepareBody(streamOf(), new Headers({ "content-length": "0" }), 4);
    expect(p.mode).toBe("buffered");
  });
});
