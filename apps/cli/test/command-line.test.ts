/**
 * `thaw` as a user runs it (issue 27): --help, --version and a mistyped flag or command for `thaw` and each
 * command, checked against the commands' tables; `thaw k8s render --help` answers too (its flags are k8s/'s).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commandLineProblems, runBin } from "@thaw/command-line/node/testing";
import { describe, expect, it } from "vitest";
import { K8S, THAW, UP, VALIDATE } from "../src/commands.js";

const bin = fileURLToPath(new URL("../bin/thaw.mjs", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const env = { PATH: process.env.PATH };

describe("thaw's command line", () => {
  it.each([
    { command: THAW, words: [] },
    { command: UP, words: ["up"] },
    { command: VALIDATE, words: ["validate"] },
    { command: K8S, words: ["k8s"] },
  ])(
    "$command.name: --help lists its table, --version, a typo exits 2 naming it",
    async ({ command, words }) => {
      expect(await commandLineProblems(bin, command, version, words)).toEqual([]);
    },
    60_000,
  );

  it("names an unknown command and the nearest one, exit 2, one line", async () => {
    const r = await runBin(bin, ["upp"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("thaw: unknown command upp (did you mean up?)\n");
    const up = await runBin(bin, ["up", "--tracng"], env);
    expect(up.code).toBe(2);
    expect(up.stderr).toBe("thaw up: unknown flag --tracng (did you mean --tracing?)\n");
  });

  it("answers thaw k8s render --help with its flags", async () => {
    const r = await runBin(bin, ["k8s", "render", "--help"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--image-registry");
  });
});
