/** `thaw-autoscaler` as a user runs it: --help, --version and a mistyped flag (issue 27), checked against its table. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commandLineProblems } from "@thaw/command-line/node/testing";
import { describe, expect, it } from "vitest";
import { AUTOSCALER_CLI } from "../src/cli-spec.js";

const bin = fileURLToPath(new URL("../bin/thaw-autoscaler.mjs", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

describe("thaw-autoscaler's command line", () => {
  it("answers --help with every flag and variable of its table, --version, and a typo with exit 2 and the flag meant", async () => {
    expect(await commandLineProblems(bin, AUTOSCALER_CLI, version)).toEqual([]);
  }, 60_000);
});
