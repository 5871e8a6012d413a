/**
 * Every command of the root package.json that runs a script of this repository (`npm run cluster`,
 * `k8s:build`, `images`, `bench`, ...) answers `--help` with what it does and its flags, and refuses a flag
 * it does not know with one line naming it (exit 2) before doing any work: none builds, starts a cluster
 * or runs a benchmark on a typo. `npm start` is left out: its flags are thaw up's (apps/cli's tests).
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts as Record<
  string,
  string
>;

/** Each script whose last step is `node <file>` of this repository, but npm start. */
const entries = Object.entries(scripts).flatMap(([name, line]) => {
  const last = line.split("&&").at(-1)?.trim() ?? "";
  const m = /^node (\S+)$/.exec(last);
  return m && name !== "start" ? [{ name, file: m[1] as string }] : [];
});

const run = (file: string, args: string[]) =>
  spawnSync(process.execPath, [join(root, file), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: "1" },
  });

describe("the repository's commands: --help and unknown flags", () => {
  it("finds the commands to check", () => {
    expect(entries.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        "cluster",
        "k8s:build",
        "coredns:build",
        "compose:build",
        "images",
        "bench",
        "conformance",
        "docs:config",
        "pack:local",
        "release:check",
      ]),
    );
  });

  for (const { name, file } of entries) {
    it(`npm run ${name} -- --help prints its usage and flags, exit 0`, () => {
      const r = run(file, ["--help"]);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toContain(`usage: npm run ${name} -- `);
      expect(r.stdout).toMatch(/^flags:$/m);
      expect(r.stdout).toContain("--help");
    });

    it(`npm run ${name} -- --no-such-flag is refused in one line, exit 2`, () => {
      const r = run(file, ["--no-such-flag"]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/unknown flag --no-such-flag/)]);
    });
  }

  it("npm run images -- --only with a name that is no component says which, and the one meant", () => {
    const r = run("tools/images/dist/main.js", ["--only", "activator,ingres-hook"]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'images: --only: "ingres-hook" is not a component (did you mean ingress-hook? known: queue-proxy, activator, autoscaler, ingress-hook, cli, example-hello)',
    );
  });
});
