/** `thaw-activator` as a user runs it: --help, --version and a mistyped flag (issue 27), checked against its table. */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commandLineProblems, runBin } from "@thaw/command-line/node/testing";
import { describe, expect, it } from "vitest";
import { ACTIVATOR_CLI } from "../src/node/cli-spec.js";

const bin = fileURLToPath(new URL("../bin/thaw-activator.mjs", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));

describe("thaw-activator's command line", () => {
  it("answers --help with every flag and variable of its table, --version, and a typo with exit 2 and the flag meant", async () => {
    expect(await commandLineProblems(bin, ACTIVATOR_CLI, version)).toEqual([]);
  }, 60_000);
});

describe("thaw-activator's listen address", () => {
  it("listens on 127.0.0.1 when given no address", async () => {
    const child = spawn(process.execPath, [bin, "--port", "0"], {
      env: { PATH: process.env.PATH },
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stderr.on("data", (d) => {
          out += d;
          const l = out.split("\n").find((x) => x.includes('"listening"'));
          if (l) resolve(l);
        });
        child.on("exit", (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
      });
      expect(JSON.parse(line)).toMatchObject({ host: "127.0.0.1" });
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("refuses every address without a token, naming the flags that fix it (exit 2, before binding)", async () => {
    const r = await runBin(bin, ["--host", "0.0.0.0", "--port", "0"], { PATH: process.env.PATH });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^thaw-activator: --host 0\.0\.0\.0 listens beyond this machine with no token: set --token .*--insecure-no-token/,
    );
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
