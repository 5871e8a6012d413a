import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Entry } from "./registry.js";
import type { Outcome, Vector } from "./types.js";

/** Totals for one vector file. */
export interface FileResult {
  file: string;
  passed: number;
  failed: number;
  skipped: number;
  failures: { name: string; reason: string }[];
  skipReasons: string[];
}

const VECTOR_TIMEOUT_MS = 30_000;

/** Lists the vector files of `target` (a directory or one file), sorted by name. */
export async function vectorFiles(target: string): Promise<string[]> {
  if (target.endsWith(".json")) return [target];
  const names = (await readdir(target)).filter((n) => n.endsWith(".json")).sort();
  return names.map((n) => join(target, n));
}

/** True when `pkg` is installed where Node would look for it from this file (a workspace link counts). */
function packagePresent(pkg: string): boolean {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", pkg, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** Runs every vector in one file through its adapter. */
export async function runFile(path: string, registry: Record<string, Entry>): Promise<FileResult> {
  const file = basename(path);
  const result: FileResult = { file, passed: 0, failed: 0, skipped: 0, failures: [], skipReasons: [] };
  let vectors: Vector[];
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as { vectors?: unknown };
    if (!Array.isArray(parsed.vectors)) throw new Error('no "vectors" array');
    vectors = parsed.vectors as Vector[];
  } catch (err) {
    result.failed = 1;
    result.failures.push({ name: "(file)", reason: `cannot read vectors: ${(err as Error).message}` });
    return result;
  }
  const entry = registry[file];
  const tally = (name: string, outcome: Outcome) => {
    if (outcome.status === "pass") result.passed++;
    else if (outcome.status === "skip") {
      result.skipped++;
      if (!result.skipReasons.includes(outcome.reason)) result.skipReasons.push(outcome.reason);
    } else {
      result.failed++;
      result.failures.push({ name, reason: outcome.reason });
    }
  };
  if (!entry) {
    for (const v of vectors)
      tally(v.name, { status: "fail", reason: `no adapter is registered for ${file}` });
    return result;
  }
  if (!packagePresent(entry.pkg)) {
    const reason = `${entry.pkg} is not in this workspace yet`;
    for (const v of vectors) tally(v.name, { status: "skip", reason });
    return result;
  }
  let adapter: Awaited<ReturnType<Entry["load"]>>;
  try {
    adapter = await entry.load();
  } catch (err) {
    const reason = `cannot load the adapter for ${entry.pkg} (is it built?): ${(err as Error).message}`;
    for (const v of vectors) tally(v.name, { status: "fail", reason });
    return result;
  }
  for (const v of vectors) tally(v.name, await runOne(adapter.run.bind(adapter), v));
  return result;
}

async function runOne(run: (v: Vector) => Promise<Outcome> | Outcome, v: Vector): Promise<Outcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: "fail", reason: `timed out after ${VECTOR_TIMEOUT_MS} ms` }),
      VECTOR_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([Promise.resolve().then(() => run(v)), timeout]);
  } catch (err) {
    return { status: "fail", reason: `threw: ${(err as Error).stack ?? String(err)}` };
  } finally {
    clearTimeout(timer);
  }
}
