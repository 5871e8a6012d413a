import { describe, expect, it } from "vitest";
import {
  BODY_LIMITS,
  BodyTooLargeError,
  bodyErrorResponse,
  readBoundedBody,
  readBoundedText,
} from "./bounded-body.js";

/** A chunked body of `count` chunks of `size` bytes that records how many chunks were pulled. */
function chunked(count: number, size: number) {
  const seen = { pulled: 0 };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        if (seen.pulled === count) return c.close();
        seen.pulled++;
        c.enqueue(new Uint8Array(size).fill(97));
      },
    },
    { highWaterMark: 0 },
  );
  return { req: { headers: new Headers(), body }, seen };
}

describe("readBoundedBody", () => {
  it("reads a body up to the bound, byte for byte", async () => {
    const { req } = chunked(4, 1024);
    expect((await readBoundedBody(req, 4096)).byteLength).toBe(4096);
    expect(await readBoundedText(new Request("http://x/", { method: "POST", body: "héllo" }), 16)).toBe(
      "héllo",
    );
    expect((await readBoundedBody({ headers: new Headers(), body: null }, 0)).byteLength).toBe(0);
  });

  it("stops at the first chunk past the bound (the rest is never pulled)", async () => {
    const { req, seen } = chunked(300_000, 1024);
    await expect(readBoundedBody(req, 16 * 1024)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(seen.pulled).toBeLessThanOrEqual(18);
  });

  it("refuses a declared Content-Length over the bound before reading", async () => {
    const { req, seen } = chunked(1, 10);
    req.headers.set("content-length", String(BODY_LIMITS.login + 1));
    await expect(readBoundedBody(req, BODY_LIMITS.login)).rejects.toThrow(/larger than 4096 bytes/);
    expect(seen.pulled).toBe(0);
  });

  it("maps the error to 413 ERR_BODY_TOO_LARGE with Connection: close; other errors are not its business", async () => {
    const res = bodyErrorResponse(new BodyTooLargeError(16));
    expect(res?.status).toBe(413);
    expect(res?.headers.get("connection")).toBe("close");
    expect(await res?.json()).toMatchObject({ error: { code: "ERR_BODY_TOO_LARGE" } });
    expect(bodyErrorResponse(new Error("other"))).toBeUndefined();
  });

  it("a bound that is not a non-negative integer is a programmer error", async () => {
    await expect(readBoundedBody({ headers: new Headers(), body: null }, -1)).rejects.toThrow(RangeError);
  });
});
