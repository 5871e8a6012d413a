#!/usr/bin/env node
/**
 * `npm run conformance -- [dir|file ...] [--verbose]`: runs Knative's vectors against Thaw, one line per
 * file and a closing `N passed, M failed`; exits 1 on any failure. Default: the project's own copy.
 */
import { writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { registry } from "./registry.js";
import { type FileResult, runFile, vectorFiles } from "./run.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const args = process.argv.slice(2);
const verbose = args.includes("--verbose");
const targets = args.filter((a) => !a.startsWith("--"));
if (targets.length === 0) targets.push(join(root, "conformance/knative"));

const results: FileResult[] = [];
for (const target of targets) {
  for (const file of await vectorFiles(target)) {
    const r = await runFile(file, registry);
    results.push(r);
    for (const f of r.failures)
      console.log(`  FAIL ${r.file} :: ${f.name}\n       ${f.reason.replace(/\n/g, "\n       ")}`);
    if (verbose || r.skipped > 0) for (const s of r.skipReasons) console.log(`  skip ${r.file}: ${s}`);
    console.log(`${r.file}: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
  }
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const skipped = results.reduce((n, r) => n + r.skipped, 0);
await writeFile(
  join(process.cwd(), ".conformance-results.json"),
  JSON.stringify({ passed, failed, skipped }),
);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
