#!/usr/bin/env node
// Sums every vitest JSON report and the conformance totals into the one line CI reads.
// Usage: node scripts/ci-summary.mjs <exit code of npm test>
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const testRc = Number(process.argv[2] ?? 0);

function* reports(dir) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === ".git" || name === "dist") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* reports(p);
    else if (name === ".vitest-results.json") yield p;
  }
}

/** One block per failed test or suite: where, what, and the first lines of why. */
function failedTests(report) {
  const out = [];
  for (const suite of report.testResults ?? []) {
    const file = relative(root, suite.name ?? "");
    const failedOnes = (suite.assertionResults ?? []).filter((a) => a.status === "failed");
    if (suite.status === "failed" && failedOnes.length === 0)
      out.push(`ci: FAILED ${file} (did not load): ${head(suite.message)}`);
    for (const a of failedOnes)
      out.push(`ci: FAILED ${file} > ${a.fullName}: ${head((a.failureMessages ?? []).join("\n"))}`);
  }
  return out;
}

/** The first lines of a failure message, enough to name the cause without the whole stack. */
function head(text) {
  return String(text ?? "")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .slice(0, 6)
    .join("\n    ");
}

let passed = 0;
let failed = 0;
const failures = [];
for (const top of ["packages", "apps", "tools", "examples"]) {
  if (!existsSync(join(root, top))) continue;
  for (const file of reports(join(root, top))) {
    const r = JSON.parse(readFileSync(file, "utf8"));
    // A suite that failed to load counts as a failure even when no test inside it ran.
    const broken = (r.testResults ?? []).filter(
      (s) => s.status === "failed" && s.assertionResults?.length === 0,
    ).length;
    passed += r.numPassedTests ?? 0;
    failed += (r.numFailedTests ?? 0) + broken;
    console.log(
      `ci: ${relative(root, file)}: ${r.numPassedTests} passed, ${r.numFailedTests + broken} failed`,
    );
    failures.push(...failedTests(r));
  }
}
// The failures come last (CI shows the tail of the log): each test's name and the head of its message.
for (const f of failures) console.log(f);
try {
  const c = JSON.parse(readFileSync(join(root, ".conformance-results.json"), "utf8"));
  passed += c.passed;
  failed += c.failed;
  console.log(`ci: conformance: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
  // Per vector set: Knative's transcribed vectors and Thaw's own (conformance/knative, conformance/thaw).
  for (const [set, t] of Object.entries(c.sets ?? {}))
    console.log(`ci: conformance/${set}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
} catch {
  console.log("ci: conformance did not run");
}
if (testRc !== 0 && failed === 0) {
  console.log(`ci: npm test exited ${testRc} before any failing test was counted`);
  failed = 1;
}
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = testRc !== 0 || failed > 0 ? 1 : 0;
