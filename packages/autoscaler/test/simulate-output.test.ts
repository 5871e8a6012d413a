/** What `thaw-simulate` prints is true (issue 27.5), checked on the real bin as a child process. */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const bin = fileURLToPath(new URL("../bin/thaw-simulate.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "thaw-simulate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function simulate(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { cwd: dir, timeout: 60_000 }, (e, out, err) =>
      resolve({ code: e ? ((e as { code?: number }).code ?? 1) : 0, out, err }),
    );
  });
}

const config = join(dir, "thaw.config.yaml");
writeFileSync(
  config,
  [
    "services:",
    "  - name: a",
    "    hosts: [a.localhost]",
    "    containerConcurrency: 4",
    "    autoscaling: { target: 4, max-scale: 8 }",
    "    run: { command: [app] }",
  ].join("\n"),
);

describe("thaw-simulate's output", () => {
  it("writes the mode as thaw up does, and fits the replicas axis to the replicas", async () => {
    // Far more load than 8 pods take: the decider wants well over 100 pods, max-scale holds 8.
    const trace = join(dir, "heavy.csv");
    const rows = Array.from({ length: 3000 }, (_, i) => `${i * 10},400`);
    writeFileSync(trace, ["arrival_ms,duration_ms", ...rows].join("\n"));
    const svg = join(dir, "out.svg");
    const r = await simulate(["--trace", trace, "--config", config, "--svg", svg]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/max replicas {4}8\n/);
    const modes = [...r.out.matchAll(/ (proxy|serve|Proxy|Serve) {2,}(yes|no)$/gm)].map((m) => m[1]);
    expect(modes.length).toBeGreaterThan(0);
    expect(new Set(modes)).toEqual(new Set(modes.filter((m) => m === "proxy" || m === "serve")));
    // The left (replicas) axis labels, top first: the top one fits 8 (10), not the decider's wish.
    const labels = [...readFileSync(svg, "utf8").matchAll(/text-anchor="end" fill="#1f5fbf">([\d.]+)</g)];
    expect(Number(labels[0]?.[1])).toBe(10);
  }, 90_000);

  it("shows a bad trace cell as it was written", async () => {
    const trace = join(dir, "bad.csv");
    writeFileSync(trace, "arrival_ms,duration_ms\nabc,100\n");
    const r = await simulate(["--trace", trace, "--config", config]);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/arrival_ms: must be a number of milliseconds ≥ 0, got "abc"/);
  }, 60_000);
});
