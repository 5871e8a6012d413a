#!/usr/bin/env node
/**
 * `npm run conformance -- [dir|file ...] [--verbose]`: runs vector files against Thaw, one line per file
 * and a closing `N passed, M failed`; exits 1 on any failure. Default: Knative's transcribed vectors
 * (conformance/knative) and Thaw's own, written from knative-spec.md (conformance/thaw).
 */
import { writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Command } from "@thaw/command-line";
import { readCommandLine } from "@thaw/command-line/node";
import { registry } from "./registry.js";
import { type FileResult, runFile, vectorFiles } from "./run.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const CONFORMANCE_COMMAND: Command = {
  name: "npm run conformance --",
  summary:
    "runs vector files against Thaw: one line per file, then `N passed, M failed`; exits 1 on any failure",
  usage: "[--verbose] [dir|file ...]",
  maxPositionals: Number.POSITIVE_INFINITY,
  flags: [{ name: "--verbose", help: "also list each skipped vector's reason" }],
  more: "Without a path: conformance/knative (Knative's transcribed vectors) and conformance/thaw (Thaw's own, from knative-spec.md).",
};
const { flags, positionals } = readCommandLine(CONFORMANCE_COMMAND, process.argv.slice(2), import.meta.url);
const verbose = flags["--verbose"] === "true";
const targets = [...positionals];
if (targets.length === 0) targets.push(join(root, "conformance/knative"), join(root, "conformance/thaw"));

const results: FileResult[] = [];
/** Totals per vector set (the folder a file is in: knative, thaw, ...). */
const sets: Record<string, { passed: number; failed: number; skipped: number }> = {};
for (const target of targets) {
  for (const file of await vectorFiles(target)) {
    const r = await runFile(file, registry);
    results.push(r);
    const set = basename(dirname(resolve(file)));
    const label = `${set}/${r.file}`;
    sets[set] ??= { passed: 0, failed: 0, skipped: 0 };
    const t = sets[set];
    t.passed += r.passed;
    t.failed += r.failed;
    t.skipped += r.skipped;
    for (const f of r.failures)
      console.log(`  FAIL ${label} :: ${f.name}\n       ${f.reason.replace(/\n/g, "\n       ")}`);
    if (verbose || r.skipped > 0) for (const s of r.skipReasons) console.log(`  skip ${label}: ${s}`);
    console.log(`${label}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  }
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skipped = results.reduce((n, r) => n + r.skipped, 0);
await writeFile(
  join(process.cwd(), ".conformance-results.json"),
  JSON.stringify({ passed, failed, skipped, sets }),
);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
