import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diff } from "./compare.js";
import type { Entry } from "./registry.js";
import { runFile } from "./run.js";
import { fail, pass, skip } from "./types.js";

async function vectorFile(name: string, vectors: unknown[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "thaw-conf-"));
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ description: "t", vectors }));
  return path;
}

const v = (name: string) => ({ name, source: "x", input: {}, expect: {} });

describe("runFile", () => {
  it("fails every vector of a file that has no adapter", async () => {
    const r = await runFile(await vectorFile("mystery.json", [v("a"), v("b")]), {});
    expect(r).toMatchObject({ passed: 0, failed: 2, skipped: 0 });
    expect(r.failures[0]?.reason).toMatch(/no adapter/);
  });

  it("skips, with the reason, a file whose package is not in the workspace", async () => {
    const registry: Record<string, Entry> = {
      "x.json": { pkg: "@thaw/does-not-exist", load: async () => ({ run: () => pass }) },
    };
    const r = await runFile(await vectorFile("x.json", [v("a")]), registry);
    expect(r).toMatchObject({ passed: 0, failed: 0, skipped: 1 });
    expect(r.skipReasons[0]).toMatch(/@thaw\/does-not-exist/);
  });

  it("counts each outcome and turns a throw into a failure", async () => {
    const registry: Record<string, Entry> = {
      "x.json": {
        pkg: "@thaw/clock",
        load: async () => ({
          run: (vec) => {
            if (vec.name === "p") return pass;
            if (vec.name === "s") return skip("no such view");
            if (vec.name === "f") return fail("differs");
            throw new Error("boom");
          },
        }),
      },
    };
    const r = await runFile(await vectorFile("x.json", [v("p"), v("s"), v("f"), v("t")]), registry);
    expect(r).toMatchObject({ passed: 1, failed: 2, skipped: 1 });
    expect(r.failures.map((f) => f.name)).toEqual(["f", "t"]);
    expect(r.failures[1]?.reason).toMatch(/boom/);
  });

  it("fails a file that is not a vector file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "thaw-conf-"));
    await writeFile(join(dir, "bad.json"), "{");
    const r = await runFile(join(dir, "bad.json"), {});
    expect(r.failed).toBe(1);
  });
});

describe("diff", () => {
  it.each([
    ["equal objects", { a: [1, { b: "x" }] }, { a: [1, { b: "x" }] }, undefined],
    ["number", { a: 1 }, { a: 2 }, "$.a: expected 2, got 1"],
    ["missing key", {}, { a: null }, "$.a: expected null, got undefined"],
    ["extra key", { a: 1, b: 2 }, { a: 1 }, "$.b: expected undefined, got 2"],
    ["array length", [1], [1, 2], "$: expected 2 items, got 1 ([1])"],
  ])("%s", (_name, actual, expected, out) => {
    expect(diff(actual, expected)).toBe(out);
  });
});
