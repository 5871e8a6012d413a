/**
 * `thaw` as a user runs it (issue 27): --help, --version and a mistyped flag or command for `thaw` and each
 * command, `thaw k8s render` included, checked against the commands' tables.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commandLineProblems, runBin } from "@thaw/command-line/node/testing";
import { describe, expect, it } from "vitest";
import { K8S, RENDER, THAW, UP, VALIDATE } from "../src/commands.js";

const bin = fileURLToPath(new URL("../bin/thaw.mjs", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const env = { PATH: process.env.PATH };

describe("thaw's command line", () => {
  it.each([
    { command: THAW, words: [] },
    { command: UP, words: ["up"] },
    { command: VALIDATE, words: ["validate"] },
    { command: K8S, words: ["k8s"] },
    { command: RENDER, words: ["k8s", "render"] },
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

  it.each([
    // A flag at the end of the line was taken for a flag missing its value; one in the middle printed the
    // usage without the flag meant.
    { args: ["--ouut"], want: "unknown flag --ouut (did you mean --out?)" },
    { args: ["--image-tga", "1.0"], want: "unknown flag --image-tga (did you mean --image-tag?)" },
    {
      args: ["--system-namspace=x"],
      want: "unknown flag --system-namspace (did you mean --system-namespace?)",
    },
    { args: ["extra"], want: "unexpected argument extra (see thaw k8s render --help)" },
  ])("thaw k8s render $args.0: exit 2, one line naming it", async ({ args, want }) => {
    const r = await runBin(bin, ["k8s", "render", ...args], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`thaw k8s render: ${want}\n`);
    expect(r.stdout).toBe("");
  });

  it("names an unknown k8s command and the one meant", async () => {
    const r = await runBin(bin, ["k8s", "rendr"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("thaw k8s: unknown command rendr (did you mean render?)\n");
  });
});
