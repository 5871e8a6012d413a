#!/usr/bin/env node
// Cold start on a real node, phase by phase (issue 25, item 6): Thaw installed as docs/kubernetes.md says
// (tools/real-cluster's installThawOnNode: a real control plane and node, the five images, nginx with
// infra/nginx's config in front), then RUNS times: wait for hello at zero, one request through nginx, and
// the pod's phases from watch events by this process's clock (created, scheduled, sandbox, containers
// started, ready, in the Service's endpoints) and the request's first byte.
// Thaw's own share is what is neither the kubelet's container start (scheduled -> containers started) nor
// the app's own start-up (what the hello app logs: its process start to listen(), STARTUP_DELAY_MS 800
// included): first byte minus those two. Goal: under 100 ms at p50. The pod's Ready condition is printed
// but not on the path: the activator probes the queue-proxy itself and forwards as soon as it answers,
// while the kubelet's first probe may come before the app listens and then waits its 10 s period.
// Env: THAW_BENCH_REAL_RUNS (default 5; 3 with THAW_BENCH_QUICK=1). Needs root and the binaries
// (`npm run k8s:build`, `npm run coredns:build`, `npm run images`): without them it says so and skips.
import { request } from "node:http";
import { fixed, quantile, verdict } from "@thaw/bench-kit";
import { HELLO_HOST, installThawOnNode, k8sBinaries, watchPodPhases } from "../dist/index.js";

const RUNS = Number(process.env.THAW_BENCH_REAL_RUNS ?? (process.env.THAW_BENCH_QUICK ? 3 : 5));
const GOAL_MS = 100;

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

/** One GET through nginx; resolves with its status and the ms from `t0` to its first body byte. */
function firstByte(url, t0) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/bench`,
      { headers: { host: HELLO_HOST }, agent: false, timeout: 90_000 },
      (res) => {
        res.once("data", () => {
          const ms = Date.now() - t0;
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode, ms }));
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer in 90 s")));
    req.on("error", reject);
    req.end();
  });
}

const t = await installThawOnNode();
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    console.log(`real-cluster bench: ${sig}, stopping the cluster`);
    t.stop().finally(() => process.exit(1));
  });
}
/** The app's own start-up, ms, as the hello app logs it ("listening on ... after N ms"). */
async function appStartMs(pod) {
  const log = await t.kubectl(["-n", "apps", "logs", pod, "-c", "user-container"]);
  const m = log.match(/listening on \S+ after (\d+) ms/);
  if (!m) throw new Error(`no start-up line in ${pod}'s log: ${log.slice(0, 200)}`);
  return Number(m[1]);
}
const cp = t.cluster.controlPlane;
const samples = [];
try {
  for (let i = 0; i < RUNS; i++) {
    const until = Date.now() + 120_000;
    while ((await t.pods("apps", "hello")).length > 0) {
      if (Date.now() > until) throw new Error("hello did not get back to zero pods in 120 s");
      await new Promise((r) => setTimeout(r, 250));
    }
    const t0 = Date.now();
    const phases = watchPodPhases(cp, "apps", "app.kubernetes.io/name=hello", "hello", t0);
    try {
      const fb = await firstByte(t.nginx.url, t0);
      if (fb.status !== 200) throw new Error(`run ${i + 1}: the cold request answered ${fb.status}`);
      const p = await phases.done;
      const kubelet = p.started - p.scheduled;
      const app = await appStartMs(p.pod);
      const s = { ...p, firstByte: fb.ms, kubelet, app, thaw: fb.ms - kubelet - app };
      samples.push(s);
      console.log(
        `run ${i + 1}/${RUNS}: created ${p.created} scheduled ${p.scheduled} sandbox ${p.sandbox} ` +
          `started ${p.started} ready ${p.ready} endpoints ${p.endpoints} first byte ${fb.ms} ms; ` +
          `kubelet ${kubelet}, app ${app}, Thaw's share ${s.thaw} ms`,
      );
    } finally {
      phases.stop();
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
const row = (label, k) => console.log(`  ${label.padEnd(44)} ${fixed(p50(k), 0).padStart(6)} ms`);
console.log(
  `\ncold start through nginx on a real node, p50 of ${samples.length} runs (ms from the request):`,
);
for (const k of ["created", "scheduled", "sandbox", "started", "ready", "endpoints", "firstByte"]) row(k, k);
console.log("where it goes, p50 of each run's share:");
samples.forEach((s) => {
  s.toCreated = s.created;
  s.toScheduled = s.scheduled - s.created;
  s.afterApp = s.firstByte - s.started - s.app;
});
row("request -> pod created (Thaw + controllers)", "toCreated");
row("created -> scheduled (scheduler)", "toScheduled");
row("scheduled -> containers started (kubelet)", "kubelet");
row("the app's own start-up (its log)", "app");
row("started -> first byte, less the app's start-up", "afterApp");
verdict("real node: Thaw's share of a cold start, p50", p50("thaw"), "<", GOAL_MS, "ms");
