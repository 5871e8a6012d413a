#!/usr/bin/env node
// Growth (issue 30, goal 5): the activator's warm path by revision count. Three real activators (dist's
// node/main.js, run as its shebang would) know R = 10, 100 and 1,000 revisions, every one warm on the same
// backend (bench/backend.mjs); wrk sends requests spread over all R revisions (a Lua script rotates the
// Knative-Serving-Revision header), so each request's lookup, throttler and pod pick are the ones of its
// revision. The figure is the activator's CPU time (its process group) per request at 16 connections,
// median of interleaved rounds (each round measures every R in turn, so the machine's load hits all alike);
// verdict: CPU per request at 1,000 revisions / 10 revisions <= 1.5x. Needs wrk and taskset (wrk on CPU 0,
// activators and backend on CPU 1 when there are two). THAW_BENCH_QUICK=1: one round of 2 s.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  benchCommandLine,
  canPin,
  freePort,
  groupCpuMicros,
  growth,
  hasCommand,
  killAllGroups,
  median,
  runWrk,
  startGroup,
  waitPort,
} from "@thaw/bench-kit";

benchCommandLine(import.meta.url, {
  name: "node bench/revisions.mjs",
  summary:
    "@thaw/activator's growth by revision count: three real activators knowing 10, 100 and 1,000 warm revisions, wrk spreading requests over all of them; verdict: CPU per request at 1,000 revisions / 10 revisions <= 1.5x",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = one round of 2 s instead of 3 rounds of 4 s",
    },
  ],
  more: "Needs wrk and taskset, and a build (dist/).",
});

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const MAIN = here("../dist/node/main.js");
const MAIN_FLAGS = (/^#!\S*env -S node(.*)$/.exec(readFileSync(MAIN, "utf8").split("\n")[0])?.[1] ?? "")
  .split(" ")
  .filter(Boolean);
const QUICK = Boolean(process.env.THAW_BENCH_QUICK);
const SECONDS = QUICK ? 2 : 4;
const ROUNDS = QUICK ? 1 : 3;
const CONNECTIONS = 16;
const SIZES = [10, 100, 1000];
const PIN = canPin();

if (!hasCommand("wrk")) {
  console.error("bench: wrk not found (apt-get install -y wrk)");
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "thaw-act-revisions-"));
const start = (name, args, env = {}) =>
  startGroup(name, process.execPath, args, { env, cpu: PIN ? "1" : undefined });

/** A wrk script that sends request i to revision i mod n of namespace "bench". */
function rotation(n) {
  const file = join(dir, `rotate-${n}.lua`);
  writeFileSync(
    file,
    `local n = ${n}\nlocal i = 0\nrequest = function()\n  i = (i + 1) % n\n` +
      `  return wrk.format(nil, nil, { ["Knative-Serving-Namespace"] = "bench", ["Knative-Serving-Revision"] = "rev-" .. i })\nend\n`,
  );
  return file;
}

/** An activator knowing `n` revisions, all on `backend`. */
async function activatorFor(n, backend) {
  const file = join(dir, `revisions-${n}.json`);
  const revs = Array.from({ length: n }, (_, i) => ({
    namespace: "bench",
    name: `rev-${i}`,
    endpoints: [`127.0.0.1:${backend}`],
  }));
  writeFileSync(file, JSON.stringify(revs));
  const port = await freePort();
  const group = start(
    `activator-${n}`,
    [...MAIN_FLAGS, MAIN, "--host", "127.0.0.1", "--port", String(port)],
    {
      THAW_REVISIONS_FILE: file,
      THAW_DRAIN_DELAY_MS: "0",
    },
  );
  await waitPort(port, group);
  return { n, port, group, script: rotation(n), cpu: [], rps: [] };
}

const wrk = (t, seconds) =>
  runWrk({
    url: `http://127.0.0.1:${t.port}/`,
    connections: CONNECTIONS,
    seconds,
    script: t.script,
    cpu: PIN ? "0" : undefined,
  });

try {
  const backendPort = await freePort();
  const backend = start("backend", [here("./backend.mjs"), String(backendPort)]);
  await waitPort(backendPort, backend);
  const targets = [];
  for (const n of SIZES) targets.push(await activatorFor(n, backendPort));
  // Warm-up: every revision of every activator probed and its pool open, the JIT done.
  for (const t of targets) {
    const r = await wrk(t, 1);
    if (r.errors > 0) throw new Error(`activator with ${t.n} revisions: ${r.errors} errors in the warm-up`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = targets.slice(round % targets.length).concat(targets.slice(0, round % targets.length));
    for (const t of order) {
      const before = groupCpuMicros(t.group.pid);
      const r = await wrk(t, SECONDS);
      if (r.errors > 0) throw new Error(`activator with ${t.n} revisions: ${r.errors} errors`);
      t.cpu.push((groupCpuMicros(t.group.pid) - before) / Math.max(1, r.requests));
      t.rps.push(r.rps);
    }
  }
  console.log(
    `activator warm path by revisions: requests spread over all R, ${CONNECTIONS} connections, ` +
      `${ROUNDS} round(s) of ${SECONDS} s, medians, pinned=${PIN}`,
  );
  for (const t of targets) {
    console.log(
      `  ${String(t.n).padStart(5)} revisions: ${median(t.rps).toFixed(0)} req/s, ` +
        `activator CPU ${median(t.cpu).toFixed(1)} us per request`,
    );
  }
  growth(
    "activator warm CPU per request by revisions",
    targets.map((t) => [t.n, median(t.cpu)]),
    { unit: "us", perItem: true, item: "request" },
  );
} finally {
  killAllGroups();
  rmSync(dir, { recursive: true, force: true });
}
