/**
 * Each command loads what it needs and no more (issue 27 point 3): the real bin, a child process, with a
 * module hook logging every URL it resolves. `--help`, `validate` and `k8s render` must not load the
 * Kubernetes client, the autoscaler service, the forward-auth service (a second or more on a busy machine)
 * or the autoscaler library's decider and simulator
 * (bench/startup.mjs measures the times; this checks the cause without a clock).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../bin/thaw.mjs", import.meta.url));
const register = fileURLToPath(new URL("./support/register-resolve-log.mjs", import.meta.url));
const hello = fileURLToPath(new URL("../../../examples/hello/", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "thaw-startup-imports-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `thaw ...args` (bounded: killed after 60 s); the URLs it resolved. */
function resolvedBy(args: string[]): string[] {
  const log = join(dir, `${args.join("-").replace(/\W+/g, "_")}.log`);
  const r = spawnSync(process.execPath, ["--import", register, bin, ...args], {
    env: { PATH: process.env.PATH, THAW_RESOLVE_LOG: log },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return readFileSync(log, "utf8").split("\n").filter(Boolean);
}

/** Entry points a short command has no use for, each a second or more to load on a busy machine. */
const HEAVY = [
  /\/@kubernetes\/client-node\//,
  /\/apps\/autoscaler\/dist\/index\.js$/,
  // The decider, windows and simulator: a config check needs @thaw/autoscaler/settings alone.
  /\/packages\/autoscaler\/dist\/index\.js$/,
  /\/apps\/ingress-hook\/dist\/node\/index\.js$/,
  /\/@opentelemetry\//,
];

describe("a command loads only what it needs", () => {
  it.each([
    { name: "thaw --help", args: ["--help"] },
    { name: "thaw validate", args: ["validate", join(hello, "thaw.config.yaml")] },
    { name: "thaw k8s render --help", args: ["k8s", "render", "--help"] },
    { name: "thaw k8s render", args: ["k8s", "render", "--config", join(hello, "thaw.k8s.yaml")] },
  ])("$name", ({ args }) => {
    const urls = resolvedBy(args);
    // The hook works: the bin's own entry was seen.
    expect(urls.some((u) => u.endsWith("/apps/cli/dist/main.js"))).toBe(true);
    expect(urls.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
  });
});
