#!/usr/bin/env node
// `npm run bench` (root): clears the verdict file, runs every workspace's `bench` script one at a time
// through turbo (--continue: a bench that fails does not hide the others), then prints one table of every
// PASS/MISS line the benches recorded (verdict.mjs) with the count of each. `--filter <workspace>` is
// passed to turbo (e.g. `npm run bench -- --filter=thaw`); `--help` lists the flags and variables. Exits with turbo's status; a MISS is a figure, not a failure,
// so it does not change the exit status.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { readCommandLine } from "@thaw/command-line/node";
import { BENCH_ENV } from "../src/command-line.mjs";
import { formatValue, verdictFile } from "../src/verdict.mjs";

const { all } = readCommandLine(
  {
    name: "npm run bench --",
    summary:
      "runs every workspace's benchmark one at a time (turbo run bench), then prints one table of every PASS/MISS verdict they recorded; a MISS is a figure, not a failure, and does not change the exit status",
    flags: [
      {
        name: "--filter",
        value: "PACKAGE",
        help: "only this workspace's bench (turbo's --filter, e.g. @thaw/queue-proxy); may be repeated",
      },
    ],
    env: BENCH_ENV,
  },
  process.argv.slice(2),
  import.meta.url,
);
const filters = all["--filter"] ?? [];
const file = verdictFile();
rmSync(file, { force: true });
const started = Date.now();
const turbo = spawnSync(
  "npx",
  ["turbo", "run", "bench", "--concurrency=1", "--continue", ...filters.map((f) => `--filter=${f}`)],
  {
    stdio: "inherit",
    env: { ...process.env, THAW_BENCH_VERDICTS: file },
  },
);
const minutes = ((Date.now() - started) / 60_000).toFixed(1);

/** @type {Array<{bench: string, name: string, value: number, op: string, target: number, unit: string, pass: boolean, load: number}>} */
const rows = [];
if (existsSync(file)) {
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    try {
      rows.push(JSON.parse(line));
    } catch {
      console.error(`bench summary: skipped a line of ${file} that is not JSON: ${line.slice(0, 80)}`);
    }
  }
}

console.log(
  `\n==== bench summary: ${rows.length} verdicts, ${minutes} min, load now ${loadavg()[0]?.toFixed(2)} ====`,
);
const benchW = Math.max(5, ...rows.map((r) => r.bench.length));
const nameW = Math.max(6, ...rows.map((r) => r.name.length));
for (const r of rows) {
  const u = r.unit ? ` ${r.unit}` : "";
  console.log(
    `${r.pass ? "PASS" : "MISS"}  ${r.bench.padEnd(benchW)}  ${r.name.padEnd(nameW)}  ` +
      `${`${formatValue(r.value)}${u}`.padStart(12)}  target ${`${r.op} ${r.target}${u}`.padEnd(14)} load ${r.load.toFixed(2)}`,
  );
}
const passed = rows.filter((r) => r.pass).length;
console.log(`${passed} PASS, ${rows.length - passed} MISS (verdicts in ${file})`);
if (turbo.status !== 0) console.log(`turbo run bench exited with ${turbo.status ?? turbo.signal}`);
process.exit(turbo.status ?? 1);
