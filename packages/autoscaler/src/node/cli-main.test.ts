import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./cli-main.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "thaw-simulate-"));
  await writeFile(
    join(dir, "thaw.config.yaml"),
    [
      "autoscaler:",
      "  stable-window: 10s",
      "  target-burst-capacity: 0",
      "services:",
      "  - name: hello",
      "    containerConcurrency: 0",
      "    autoscaling:",
      "      target: 10",
      "      target-utilization-percentage: 100",
      "      scale-to-zero-grace-period: 10s",
      "",
    ].join("\n"),
  );
  await writeFile(join(dir, "trace.csv"), "arrival_ms,duration_ms\n0,1000\n");
  await writeFile(join(dir, "bad.csv"), "0,1000\n5,abc\n");
  await writeFile(join(dir, "cfg.json"), JSON.stringify({ containerConcurrency: 0 }));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(args: string[]) {
  let out = "";
  let err = "";
  const code = await runCli(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe("thaw-simulate", () => {
  it("prints help", async () => {
    const r = await run(["--help"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("--trace FILE");
    expect(r.out).toContain("arrival_ms,duration_ms");
  });

  it.each([
    { name: "missing flags", args: [], err: "--trace and --config are required" },
    {
      name: "unknown flag",
      args: ["--trac", "t"],
      err: "thaw-simulate: unknown flag --trac (did you mean --trace?)",
    },
    { name: "bad format", args: ["--trace", "t", "--config", "c", "--format", "xml"], err: "csv or jsonl" },
  ])("exits 2 on $name", async ({ args, err }) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err).toContain(err);
  });

  it("names the file, line and field of a bad trace row", async () => {
    const r = await run(["--trace", join(dir, "bad.csv"), "--config", join(dir, "cfg.json")]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("bad.csv: line 2: duration_ms: must be a number");
  });

  it("simulates, reports and draws an SVG", async () => {
    const svg = join(dir, "out.svg");
    const r = await run([
      "--trace",
      join(dir, "trace.csv"),
      "--config",
      join(dir, "thaw.config.yaml"),
      "--svg",
      svg,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("cold starts     1");
    expect(r.out).toContain("scaled to zero  at 20.0s"); // 10 s stable window + 10 s grace
    const text = await readFile(svg, "utf8");
    expect(text.startsWith("<svg")).toBe(true);
    expect(text.trim().endsWith("</svg>")).toBe(true);
  });

  it("prints JSON on request", async () => {
    const r = await run(["--trace", join(dir, "trace.csv"), "--config", join(dir, "cfg.json"), "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ requests: 1, coldStarts: 1 });
  });
});

describe("thaw-simulate's trace errors", () => {
  it("shows a CSV cell as written, not the null its NaN becomes in JSON", async () => {
    const bad = join(dir, "abc.csv");
    await writeFile(bad, "0,100\n5,abc\n10,-5\n");
    const r = await run(["--trace", bad, "--config", join(dir, "cfg.json")]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('line 2: duration_ms: must be a number of milliseconds ≥ 0, got "abc"');
    expect(r.err).toContain("line 3: duration_ms: must be a number of milliseconds ≥ 0, got -5");
  });
});

describe("thaw-simulate: scoring warm before need on one trace", () => {
  it("no schedule vs schedule vs hint: fewer waits when warmed, more pod-seconds", async () => {
    await writeFile(
      join(dir, "warm.yaml"),
      [
        "autoscaler: { stable-window: 60s, scale-to-zero-grace-period: 30s }",
        "simulate: { startupDelay: 5s, start: 2026-12-07T07:00:00Z }",
        "services:",
        "  - name: api",
        "    containerConcurrency: 10",
        "    schedules:",
        '      - { start: "55 7 * * *", duration: 15m, minScale: 1 }',
        "",
      ].join("\n"),
    );
    const rows = Array.from({ length: 300 }, (_, i) => `${3_600_000 + i * 1000},200`);
    await writeFile(join(dir, "rush.csv"), `${rows.join("\n")}\n`);
    await writeFile(join(dir, "logins.csv"), "3570000,0\n");
    const base = ["--trace", join(dir, "rush.csv"), "--config", join(dir, "warm.yaml"), "--json"];
    const score = async (extra: string[]) => {
      const r = await run([...base, ...extra]);
      expect(r.code, r.err).toBe(0);
      return JSON.parse(r.out) as { coldRequests: number; queued: { waited: number }; podSeconds: number };
    };
    const none = await score(["--no-schedules"]);
    const sched = await score([]);
    const hint = await score(["--no-schedules", "--hints", join(dir, "logins.csv"), "--hint-ttl", "10m"]);
    expect(none.queued.waited).toBeGreaterThan(0);
    expect(sched.queued.waited).toBe(0);
    expect(hint.queued.waited).toBe(0);
    expect(sched.podSeconds).toBeGreaterThan(none.podSeconds);
    expect(hint.coldRequests).toBe(0);
  });

  it("refuses a bad --start and a bad schedule, naming them", async () => {
    const r = await run([
      "--trace",
      join(dir, "trace.csv"),
      "--config",
      join(dir, "warm.yaml"),
      "--start",
      "monday",
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--start: must be an ISO 8601 instant/);
    await writeFile(
      join(dir, "bad-sched.yaml"),
      'services:\n  - name: api\n    schedules: [{ start: "0 8 * *", duration: 1h, minScale: 1 }]\n',
    );
    const b = await run(["--trace", join(dir, "trace.csv"), "--config", join(dir, "bad-sched.yaml")]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/services\[0\]\.schedules\[0\]\.start: has 4 fields/);
  });
});
