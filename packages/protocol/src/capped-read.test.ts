import { describe, expect, it } from "vitest";
import { capBytes, readCapped, STAT_SCRAPE_MAX_BYTES } from "./capped-read.js";

function stream(chunks: number[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const size = chunks[i++];
      if (size === undefined) controller.close();
      else controller.enqueue(new Uint8Array(size).fill(i));
    },
    cancel() {
      onCancel?.();
    },
  });
}

describe("readCapped", () => {
  it("matches the scraper's limit", () => {
    expect(STAT_SCRAPE_MAX_BYTES).toBe(336);
  });

  it.each([
    { name: "small body", chunks: [10, 20], max: 336, len: 30, truncated: false },
    { name: "exactly the cap", chunks: [300, 36], max: 336, len: 336, truncated: false },
    { name: "one byte over", chunks: [337], max: 336, len: 336, truncated: true },
    { name: "over across chunks", chunks: [200, 200, 200], max: 336, len: 336, truncated: true },
    { name: "empty chunks", chunks: [0, 5, 0], max: 336, len: 5, truncated: false },
    { name: "cap 0 with a body", chunks: [1], max: 0, len: 0, truncated: true },
  ])("$name", async ({ chunks, max, len, truncated }) => {
    let cancelled = false;
    const r = await readCapped(
      stream(chunks, () => {
        cancelled = true;
      }),
      max,
    );
    expect(r.bytes.length).toBe(len);
    expect(r.truncated).toBe(truncated);
    expect(cancelled).toBe(truncated);
  });

  it("keeps the bytes in order", async () => {
    const r = await readCapped(stream([2, 2]), 3);
    expect([...r.bytes]).toEqual([1, 1, 2]);
  });

  it("no body", async () => {
    expect(await readCapped(null)).toEqual({ bytes: new Uint8Array(0), truncated: false });
  });

  it("a bad cap is a programmer error", async () => {
    await expect(readCapped(null, -1)).rejects.toThrow(RangeError);
  });

  it("reads a Response body", async () => {
    const r = await readCapped(new Response(new Uint8Array(400)).body);
    expect(r).toMatchObject({ truncated: true });
    expect(r.bytes.length).toBe(336);
  });
});

describe("capBytes", () => {
  it.each([
    [10, 336, 10, false],
    [336, 336, 336, false],
    [400, 336, 336, true],
  ])("%i bytes, cap %i", (n, max, len, truncated) => {
    const r = capBytes(new Uint8Array(n), max);
    expect(r.bytes.length).toBe(len);
    expect(r.truncated).toBe(truncated);
  });
});
