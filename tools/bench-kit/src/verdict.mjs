// One line per figure a benchmark checks against a target (issue 19), in one style for every bench:
//
//   PASS  cold-start overhead p99 (thaw up)               41.20 ms   target < 60 ms       load 1.52
//
// and the same verdict appended as a JSON line to THAW_BENCH_VERDICTS (default
// <repo>/bench-results/verdicts.jsonl), so `npm run bench` can print every verdict of every bench in one
// table at the end (scripts/bench-summary.mjs). Usage from a bench:
//
//   import { verdict } from "@thaw/bench-kit/verdict";
//   verdict("decider tick, 10,000 revisions", tickMs, "<", 5, "ms");
import { appendFileSync, mkdirSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The comparisons a target can use. @type {Record<string, (v: number, t: number) => boolean>} */
const OPS = {
  "<": (v, t) => v < t,
  "<=": (v, t) => v <= t,
  ">": (v, t) => v > t,
  ">=": (v, t) => v >= t,
};

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Where verdicts are recorded: THAW_BENCH_VERDICTS, else <repo>/bench-results/verdicts.jsonl. */
export function verdictFile() {
  return process.env.THAW_BENCH_VERDICTS || join(repoRoot, "bench-results/verdicts.jsonl");
}

/** The bench that records: npm's package name when run through npm/turbo, else the script's file name. */
function benchName() {
  return process.env.npm_package_name || process.argv[1]?.split("/").slice(-3).join("/") || "bench";
}

/**
 * `x` with a precision that suits its size (3 significant digits at least, 2 decimals at most).
 * @param {number} x
 */
export function formatValue(x) {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  return a >= 100 ? x.toFixed(0) : a >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/**
 * Prints one aligned PASS/MISS line for `value` against `op target` (e.g. `verdict("p99", 41.2, "<", 60,
 * "ms")`) with the 1-minute load average, records it as a JSON line in {@link verdictFile}, and returns
 * whether it passed. A value that is not a finite number (the figure could not be measured) is a MISS.
 * `note` is printed after the line (e.g. the curve the figure comes from).
 * @param {string} name
 * @param {number} value
 * @param {"<" | "<=" | ">" | ">="} op
 * @param {number} target
 * @param {string} [unit]
 * @param {string} [note]
 */
export function verdict(name, value, op, target, unit = "", note = "") {
  const cmp = OPS[op];
  if (!cmp) throw new TypeError(`verdict: op must be one of ${Object.keys(OPS).join(" ")}, got ${op}`);
  const pass = Number.isFinite(value) && cmp(value, target);
  const load = loadavg()[0] ?? 0;
  const u = unit ? ` ${unit}` : "";
  const line =
    `${pass ? "PASS" : "MISS"}  ${name.padEnd(52)} ${formatValue(value).padStart(9)}${u.padEnd(6)} ` +
    `target ${`${op} ${target}${u}`.padEnd(14)} load ${load.toFixed(2)}${note ? `  ${note}` : ""}`;
  console.log(line);
  const record = { bench: benchName(), name, value, op, target, unit, pass, load, note, at: Date.now() };
  try {
    const file = verdictFile();
    mkdirSync(dirname(file), { recursive: true });
    appendFileSync(file, `${JSON.stringify(record)}\n`);
  } catch (err) {
    console.error(
      `verdict: could not record to ${verdictFile()}: ${err instanceof Error ? err.message : err}`,
    );
  }
  return pass;
}

/**
 * Prints a growth curve (`label: 10 -> v, 100 -> v, ...`) as one indented line, e.g. before its verdict.
 * @param {string} label
 * @param {Array<[string | number, number]>} points
 * @param {string} [unit]
 */
export function curve(label, points, unit = "") {
  const u = unit ? ` ${unit}` : "";
  console.log(`      curve ${label}: ${points.map(([n, v]) => `${n} -> ${formatValue(v)}${u}`).join(", ")}`);
}
