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
