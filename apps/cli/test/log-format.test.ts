import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatRecord } from "../src/format.js";

const bin = join(dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

describe("thaw up --log-format", () => {
  it("a value other than text or json exits 2 naming the flag and the choices", () => {
    for (const args of [["--log-format", "yaml"], ["--log-format=JSON"], ["--log-format"]]) {
      const r = spawnSync(process.execPath, [bin, "up", ...args], { encoding: "utf8", timeout: 20_000 });
      expect(r.status).toBe(2);
      // A missing value names the choices too (the command line's table: `needs a value (text|json)`).
      expect(r.stderr).toMatch(
        /^thaw up: --log-format (must be one of text, json, got "|needs a value \(text\|json\))/,
      );
    }
  });

  it("text renders a scale record and a cold-start record as one readable line each; samples print nothing", () => {
    const t = Date.parse("2026-12-01T19:37:11.964Z");
    expect(
      formatRecord({
        type: "scale",
        data: {
          t,
          namespace: "default",
          revision: "hello",
          from: 0,
          to: 1,
          reason: "request while scaled to zero",
        },
      }),
    ).toBe("19:37:11.964  default/hello  0 -> 1  request while scaled to zero");
    const line = formatRecord({
      type: "coldstart",
      data: {
        namespace: "default",
        revision: "hello",
        id: "default/hello#1",
        startedAt: t,
        phases: [
          { phase: "queued", at: t, ms: 0 },
          { phase: "scaleDecision", at: t + 1, ms: 1 },
          { phase: "podStarted", at: t + 3, ms: 2 },
          { phase: "firstReady", at: t + 900, ms: 897 },
          { phase: "firstByte", at: t + 1033, ms: 133 },
        ],
        totalMs: 1033,
      },
    });
    expect(line).toBe(
      "19:37:12.997  default/hello  cold start 1033 ms (scale decision +1, pod process started +2, first ready probe +897, first byte +133 ms)",
    );
    expect(formatRecord({ type: "sample", data: { t, revisions: [] } })).toBeUndefined();
  });
});
