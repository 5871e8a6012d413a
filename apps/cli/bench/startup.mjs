#!/usr/bin/env node
// Start-up time of `thaw` commands (issue 27 point 3), each as a ratio to `node -e 0` timed in the same run:
// `thaw --help`, `thaw validate <examples/hello>`, and `thaw up` from spawn to its listening line. The four
// are run interleaved (one of each per round, so a load change hits them alike), RUNS rounds; each figure is
// a median. Targets: <= 2x for --help and validate (a command that loads only what it needs costs about one
// Node start); `thaw up` is printed with no target: its line comes after a warm-up cold start and the spare
// pods it waits for (up to 2 s by design, up.ts), which no Node start-up compares with.
// Env: THAW_BENCH_STARTUP_RUNS=<n> rounds (default 9; THAW_BENCH_QUICK=1: 5).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchCommandLine, freePort, median, verdict } from "@thaw/bench-kit";

benchCommandLine(import.meta.url, {
  name: "node bench/startup.mjs",
  summary:
    "thaw's start-up time (apps/cli): `thaw --help`, `thaw validate examples/hello` and `thaw up` to its listening line, interleaved, each as a ratio to `node -e 0` timed in the same run; targets <= 2x for --help and validate",
  env: [
    {
      name: "THAW_BENCH_STARTUP_RUNS",
      default: "9; 5 with THAW_BENCH_QUICK",
      help: "rounds, one of each command per round",
    },
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 5 rounds instead of 9",
    },
  ],
  more: "Runs against dist/ (build first).",
});

const here = dirname(fileURLToPath(import.meta.url));
const thaw = join(here, "../bin/thaw.mjs");
const hello = join(here, "../../../examples/hello");
const RUNS = Number(process.env.THAW_BENCH_STARTUP_RUNS ?? (process.env.THAW_BENCH_QUICK ? 5 : 9));

/** Runs `args` with node; resolves with ms from spawn to exit (or to the first stdout line matching `until`). */
function timed(args, { until, env } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...env },
    });
    let out = "";
    let err = "";
    let ms;
    child.stdout.on("data", (d) => {
      out += d;
      if (until && ms === undefined && until.test(out)) {
        ms = performance.now() - t0;
        child.kill("SIGTERM");
      }
    });
    child.stderr.on("data", (d) => {
      err += d;
    });
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(guard);
      const end = performance.now() - t0;
      if (until ? ms === undefined : code !== 0) {
        reject(new Error(`node ${args.join(" ")} exited ${code}: ${err.slice(0, 500)}`));
      } else resolve(ms ?? end);
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "thaw-startup-"));
try {
  const port = await freePort();
  const config = join(dir, "thaw.config.yaml");
  // The example, on a free port, its pods started from the example's folder.
  const text = readFileSync(join(hello, "thaw.config.yaml"), "utf8")
    .replace(/^listen: .*$/m, `listen: 127.0.0.1:${port}`)
    .replace(/^ {4}run:.*$/m, `    run:\n      cwd: ${hello}`);
  writeFileSync(config, text);
  const cases = [
    ["node -e 0", () => timed(["-e", "0"])],
    ["thaw --help", () => timed([thaw, "--help"])],
    ["thaw validate", () => timed([thaw, "validate", config])],
    ["thaw up", () => timed([thaw, "up", "--config", config], { until: /^thaw up: gateway on /m })],
  ];
  const times = new Map(cases.map(([name]) => [name, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const [name, run] of cases) times.get(name).push(await run());
  }
  const base = median(times.get("node -e 0"));
  console.log(`startup: ${RUNS} interleaved rounds, medians; load ${loadavg()[0]?.toFixed(2)}`);
  for (const [name] of cases) {
    console.log(`  ${name.padEnd(14)} ${median(times.get(name)).toFixed(0).padStart(6)} ms`);
  }
  verdict("thaw --help / node -e 0", median(times.get("thaw --help")) / base, "<=", 2, "x");
  verdict("thaw validate / node -e 0", median(times.get("thaw validate")) / base, "<=", 2, "x");
  console.log(
    `      thaw up to its listening line / node -e 0: ${(median(times.get("thaw up")) / base).toFixed(1)} x ` +
      "(no target: includes the warm-up cold start and the spares it waits for)",
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
