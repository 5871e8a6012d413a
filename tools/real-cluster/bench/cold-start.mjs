#!/usr/bin/env node
// Cold start on a real node, phase by phase (issue 25, item 6): Thaw installed as docs/kubernetes.md says
// (tools/real-cluster's installThawOnNode: a real control plane and node, the five images, nginx with
// infra/nginx's config in front), then RUNS times: wait for hello at zero, one request through nginx, and
// trace it (src/node/cold-start-trace.ts): the Deployment, its ReplicaSet and its pod by watch events,
// containerd's task starts, the containers' "listening" log lines by the CRI log's timestamps, the
// autoscaler's scale record and the app's own times (its answer's uptime), all on this host's clock.
// The critical path is split into parts that add up to the first byte (src/node/cold-start-split.ts).
// Thaw's own share is every part but those of the kubelet (scheduled -> the app's container started) and of
// the app's own start-up (its container started -> it listens, STARTUP_DELAY_MS 800 included, and the time
// it takes over its first request, the queue-proxy's readiness probe, by its own clock). The app answers
// at once here (WORK_MS 0): the example's 300 ms of work per request would otherwise sit in the first byte.
// Goal: under 100 ms at p50. The pod's Ready condition and its ready EndpointSlice entry are printed beside
// the path: the activator probes the queue-proxy itself as soon as the pod is listed.
// Env: THAW_BENCH_REAL_RUNS (default 5; 3 with THAW_BENCH_QUICK=1); THAW_BENCH_LOGS=<dir> keeps each run's
// moments and the logs of Thaw's pods and the app's pod there (the cluster is gone after the bench). Needs root and the binaries
// (`npm run k8s:build`, `npm run coredns:build`, `npm run images`): without them it says so and skips.
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { loadavg } from "node:os";
import { benchCommandLine, fixed, quantile, verdict } from "@thaw/bench-kit";
import {
  HELLO_HOST,
  installThawOnNode,
  k8sBinaries,
  splitColdStart,
  thawShare,
  traceColdStart,
} from "../dist/index.js";

benchCommandLine(import.meta.url, {
  name: "node bench/cold-start.mjs",
  summary:
    "cold start on a real node, phase by phase (tools/real-cluster): Thaw installed on a real control plane and node with nginx in front, then each run waits for hello at zero, sends one request through nginx and traces its critical path; goal: Thaw's share under 100 ms at p50",
  env: [
    {
      name: "THAW_BENCH_REAL_RUNS",
      default: "5; 3 with THAW_BENCH_QUICK",
      help: "cold starts measured",
    },
    {
      name: "THAW_BENCH_LOGS",
      help: "a folder to keep each run's moments and the logs of Thaw's pods and the app's pod in",
    },
    {
      name: "XDG_CACHE_HOME",
      default: "~/.cache",
      help: "where the built binaries are found, under thaw/",
    },
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 3 runs instead of 5",
    },
  ],
  more: "Needs root and the binaries of `npm run k8s:build`, `npm run coredns:build` and `npm run images`: without them it says so and skips (exit 0). Runs against dist/ (build first).",
});

const RUNS = Number(process.env.THAW_BENCH_REAL_RUNS ?? (process.env.THAW_BENCH_QUICK ? 3 : 5));
const GOAL_MS = 100;
/** Quiet time between the trace's watches opening and the request. */
const SETTLE_MS = 500;

if (process.getuid?.() !== 0) {
  console.log("real-cluster bench: skipped: a real node needs root (network namespaces, containerd)");
  process.exit(0);
}
try {
  k8sBinaries();
} catch (e) {
  console.log(`real-cluster bench: skipped: ${e.message}`);
  process.exit(0);
}

/** One GET through nginx: its status, the ms from `t0` to its first body byte, its body and Server-Timing. */
function firstByte(url, t0) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/bench`,
      { headers: { host: HELLO_HOST }, agent: false, timeout: 90_000 },
      (res) => {
        let body = "";
        let ms;
        res.setEncoding("utf8");
        res.on("data", (c) => {
          ms ??= Date.now() - t0;
          if (body.length < 4096) body += c;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode, ms, body, serverTiming: res.headers["server-timing"] }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in 90 s")));
    req.on("error", reject);
    req.end();
  });
}

const t = await installThawOnNode({ workMs: 0 });
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    console.log(`real-cluster bench: ${sig}, stopping the cluster`);
    t.stop().finally(() => process.exit(1));
  });
}
/** Writes run `n`'s moments and every container log of Thaw and of the app's pod under `dir`. */
async function keepLogs(dir, n, t0, sample) {
  writeFileSync(`${dir}/run-${n}.json`, JSON.stringify({ t0, ...sample }, null, 1));
  const logs = async (ns, args) =>
    t.kubectl([
      "-n",
      ns,
      "logs",
      "--timestamps",
      "--prefix",
      "--tail=-1",
      "--all-containers",
      "--max-log-requests=20",
      ...args,
    ]);
  writeFileSync(
    `${dir}/run-${n}-thaw.log`,
    await logs("thaw-system", ["-l", "app.kubernetes.io/part-of=thaw"]),
  );
  writeFileSync(`${dir}/run-${n}-app.log`, await logs("apps", [sample.pod]));
}
const samples = [];
const loads = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const until = Date.now() + 120_000;
    while ((await t.pods("apps", "hello")).length > 0) {
      if (Date.now() > until) throw new Error("hello did not get back to zero pods in 120 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    const trace = traceColdStart(t, "apps", "hello");
    try {
      // Its watches and `ctr events` start before the request, and their start-up's CPU has passed.
      await trace.ready;
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      loads.push(loadavg()[0]);
      const t0 = trace.begin();
      const fb = await firstByte(t.nginx.url, t0);
      if (fb.status !== 200) throw new Error(`run ${i + 1}: the cold request answered ${fb.status}`);
      const m = await trace.moments(await trace.phases, fb.ms, fb.body);
      const parts = splitColdStart(m);
      const s = { ...m, thaw: thawShare(parts) };
      for (const p of parts) s[p.key] = p.ms;
      samples.push(s);
      if (process.env.THAW_BENCH_LOGS) await keepLogs(process.env.THAW_BENCH_LOGS, i + 1, t0, s);
      console.log(
        `run ${i + 1}/${RUNS} (load ${loads.at(-1).toFixed(2)}): ` +
          `${parts.map((p) => `${p.key} ${p.ms}`).join(", ")}; first byte ${fb.ms} ms, Thaw's share ${s.thaw} ms` +
          (fb.serverTiming ? ` (activator Server-Timing: ${fb.serverTiming})` : ""),
      );
    } finally {
      trace.stop();
    }
  }
} finally {
  await t.stop();
}

const p50 = (k) =>
  quantile(
    samples.map((s) => s[k]),
    50,
  );
const row = (label, k, mark = "") =>
  console.log(`  ${mark.padEnd(6)}${label.padEnd(52)} ${fixed(p50(k), 0).padStart(6)} ms`);
console.log(
  `\ncold start through nginx on a real node, p50 of ${samples.length} runs (load average ${loads.map((l) => l.toFixed(2)).join(", ")}):`,
);
console.log("moments, ms from the request:");
for (const k of [
  "decided",
  "scaleWritten",
  "rsScaled",
  "created",
  "scheduled",
  "sandboxStarted",
  "appStarted",
  "queueProxyStarted",
  "listed",
  "queueProxyListening",
  "appListening",
  "listenToFirstMs",
  "firstAnswerMs",
  "listenToAnswerMs",
  "ready",
  "endpoints",
  "firstByte",
])
  row(k, k);
console.log("the critical path, p50 of each run's part (Thaw's parts marked):");
for (const p of splitColdStart(samples[0])) row(p.label, p.key, p.thaw ? "thaw" : "");
verdict("real node: Thaw's share of a cold start, p50", p50("thaw"), "<", GOAL_MS, "ms");
