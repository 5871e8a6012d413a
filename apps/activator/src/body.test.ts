import { BodyBudget } from "@thaw/activation";
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

  it("a declared length that does not fit the budget streams, nothing read or taken", async () => {
    const budget = new BodyBudget({ revisionBytes: 6, processBytes: 100 });
    const first = budget.open("r");
    await prepareBody(streamOf("abcd"), new Headers({ "content-length": "4" }), 10, first);
    const second = budget.open("r");
    const p = await prepareBody(streamOf("efgh"), new Headers({ "content-length": "4" }), 10, second);
    expect(p.mode).toBe("stream");
    expect(budget.used).toBe(4);
    expect(await text(p.next())).toBe("efgh");
    first.release();
    expect(budget.used).toBe(0);
  });

  it("a chunked body streams from the chunk that does not fit; the bytes before it stay taken", async () => {
    const budget = new BodyBudget({ revisionBytes: 5, processBytes: 100 });
    const account = budget.open("r");
    const p = await prepareBody(streamOf("abc", "de", "f", "g"), new Headers(), 10, account);
    expect(p.mode).toBe("stream");
    expect(budget.used).toBe(5);
    expect(await text(p.next())).toBe("abcdefg");
    account.release();
    expect(budget.used).toBe(0);
  });

  it("a body whose read fails gives its bytes back", async () => {
    const budget = new BodyBudget();
    const account = budget.open("r");
    let n = 0;
    const failing = new ReadableStream<Uint8Array>({
      pull(c) {
        if (n++ === 0) c.enqueue(new Uint8Array(3));
        else c.error(new Error("client gone"));
      },
    });
    await expect(prepareBody(failing, new Headers(), 10, account)).rejects.toThrow("client gone");
    expect(budget.used).toBe(0);
  });
});
