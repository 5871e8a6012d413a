import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { parseSpareEnv, readSpareEnv } from "./spare.js";

describe("spare mode's env line", () => {
  it("takes a JSON object of strings from the first stdin line", async () => {
    const input = new PassThrough();
    const got = readSpareEnv(input);
    input.write('{"USER_PORT":"8080","QUEUE_SERVING_PORT":"8012"}\n{"ignored":"x"}\n');
    expect(await got).toEqual({ ok: true, env: { USER_PORT: "8080", QUEUE_SERVING_PORT: "8012" } });
  });

  it("is undefined when stdin ends first (the supervisor is gone)", async () => {
    const input = new PassThrough();
    const got = readSpareEnv(input);
    input.end();
    expect(await got).toBeUndefined();
  });

  it("names the field and the fix for bad input", () => {
    expect(parseSpareEnv("nope")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not JSON.*send one line/),
    });
    expect(parseSpareEnv("[1]")).toMatchObject({ ok: false, error: expect.stringMatching(/JSON object/) });
    expect(parseSpareEnv('{"USER_PORT":8080}')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^stdin\.USER_PORT: must be a string/),
    });
  });
});
