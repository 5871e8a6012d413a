/**
 * Every command of this repository a user can run answers `--help` with what it does and its flags, and
 * refuses a flag it does not know with one line naming it (exit 2) before doing any work: none builds,
 * starts a cluster or runs a benchmark on a typo. The commands are the `node <file>` steps of the scripts
 * of the root package.json (`npm run cluster`, `k8s:build`, `images`, `bench`, ...) and of every
 * workspace's (each workspace's benches, queue-proxy's bundle step, ...), each run from its package's
 * folder as npm runs it. Left out: `npm start` (its flags are thaw up's, apps/cli's tests), steps that
 * already pass arguments of their own, and tests.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const readPackage = (dir: string) =>
  JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
    scripts?: Record<string, string>;
    workspaces?: string[];
  };
const rootPackage = readPackage(".");

/** The workspaces' folders (`apps/activator`, ...), from the root package.json's `dir/*` globs. */
const workspaces = (rootPackage.workspaces ?? []).flatMap((glob) => {
  const parent = /^([\w.-]+)\/\*$/.exec(glob)?.[1];
  if (!parent) throw new Error(`workspace glob ${glob}: only dir/* is read here`);
  return readdirSync(join(root, parent), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, parent, d.name, "package.json")))
    .map((d) => `${parent}/${d.name}`)
    .sort();
});

interface Entry {
  /** The package's folder, relative to the repository (`.` for the root). */
  dir: string;
  /** The script's file, relative to `dir`. */
  file: string;
  /** The scripts it is a step of. */
  scripts: string[];
}

/** Each `node <file>` step (no arguments of its own) of each script of the package in `dir`, once per file. */
function entriesOf(dir: string): Entry[] {
  const byFile = new Map<string, Entry>();
  for (const [script, line] of Object.entries(readPackage(dir).scripts ?? {})) {
    if (dir === "." && script === "start") continue;
    for (const step of line.split(/&&|\|\||;/)) {
      const file = /^node ([^\s-]\S*)$/.exec(step.trim())?.[1];
      if (!file || /\.test\.[cm]?[jt]s$|(^|\/)tests?\//.test(file)) continue;
      const entry = byFile.get(file) ?? { dir, file, scripts: [] };
      entry.scripts.push(script);
      byFile.set(file, entry);
    }
  }
  return [...byFile.values()];
}

const rootEntries = entriesOf(".");
const workspaceEntries = workspaces.flatMap(entriesOf);

const run = (dir: string, file: string, args: string[]) =>
  spawnSync(process.execPath, [file, ...args], {
    cwd: join(root, dir),
    encoding: "utf8",
    timeout: 30_000,
    env: { ...process.env, NO_COLOR: "1" },
  });

/** A spawn of a module graph can take seconds on a loaded machine. */
const SPAWN_TIMEOUT_MS = 60_000;

function expectHelp(r: ReturnType<typeof run>, usage: string | RegExp) {
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  if (typeof usage === "string") expect(r.stdout).toContain(usage);
  else expect(r.stdout).toMatch(usage);
  expect(r.stdout).toMatch(/^flags:$/m);
  expect(r.stdout).toContain("--help");
}

function expectRefused(r: ReturnType<typeof run>) {
  expect(r.status).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/unknown flag --no-such-flag/)]);
}

describe("the repository's commands: --help and unknown flags", () => {
  it("finds the commands to check", () => {
    expect(rootEntries.flatMap((e) => e.scripts)).toEqual(
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
    expect(workspaceEntries.map((e) => `${e.dir}/${e.file}`)).toEqual(
      expect.arrayContaining([
        "apps/activator/bench/run.mjs",
        "apps/activator/bench/queued.mjs",
        "apps/activator/bench/revisions.mjs",
        "apps/autoscaler/bench/scrape.mjs",
        "apps/autoscaler/bench/tick.mjs",
        "apps/cli/bench/startup.mjs",
        "apps/cli/bench/cold-start.mjs",
        "apps/ingress-hook/bench/run.mjs",
        "apps/ingress-hook/bench/edge.mjs",
        "apps/ingress-hook/bench/growth.mjs",
        "apps/queue-proxy/bench/run.mjs",
        "apps/queue-proxy/scripts/bundle.mjs",
        "packages/activation/bench/throttler.mjs",
        "packages/autoscaler/bench/run.mjs",
        "packages/protocol/bench/run.mjs",
        "packages/readiness/bench/detect.mjs",
        "tools/images/dist/main.js",
        "tools/real-cluster/bench/cold-start.mjs",
      ]),
    );
  });

  for (const { file, scripts } of rootEntries) {
    for (const name of scripts) {
      it(
        `npm run ${name} -- --help prints its usage and flags, exit 0`,
        () => expectHelp(run(".", file, ["--help"]), `usage: npm run ${name} -- `),
        SPAWN_TIMEOUT_MS,
      );

      it(
        `npm run ${name} -- --no-such-flag is refused in one line, exit 2`,
        () => expectRefused(run(".", file, ["--no-such-flag"])),
        SPAWN_TIMEOUT_MS,
      );
    }
  }

  for (const { dir, file, scripts } of workspaceEntries) {
    const what = `${dir}: node ${file} (npm run ${scripts.join(", ")})`;
    it(
      `${what} --help prints its usage and flags, exit 0`,
      () => expectHelp(run(dir, file, ["--help"]), /^usage: \S/m),
      SPAWN_TIMEOUT_MS,
    );

    it(
      `${what} --no-such-flag is refused in one line, exit 2`,
      () => expectRefused(run(dir, file, ["--no-such-flag"])),
      SPAWN_TIMEOUT_MS,
    );
  }

  it("npm run images -- --only with a name that is no component says which, and the one meant", () => {
    const r = run(".", "tools/images/dist/main.js", ["--only", "activator,ingres-hook"]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe(
      'images: --only: "ingres-hook" is not a component (did you mean ingress-hook? known: queue-proxy, activator, autoscaler, ingress-hook, cli, example-hello)',
    );
  });
});
