#!/usr/bin/env node
// Cold-start overhead of Thaw: time to first byte of the first request to a service at zero, minus the
// app's own start-up time. The baseline is measured in the same run: the same app spawned directly and
// polled until it answers. N services in one `thaw up`, each woken once, one after the other.
// Env: THAW_BENCH_QUICK=1 for 5 cold starts instead of 20.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, quantile as pct, sleep } from "@thaw/bench-kit";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "../../../examples/hello/server.mjs");
const bin = join(here, "../dist/main.js");
const N = process.env.THAW_BENCH_QUICK ? 5 : 20;
// Knative's default keeps the activator in the path (target-burst-capacity 211); TBC 0 takes it out as soon
// as a pod is ready. THAW_BENCH_TBC picks one; the default runs the Knative default.
const TBC = process.env.THAW_BENCH_TBC ?? "211";
const STARTUP_MS = 500;

function firstByte(port, host, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(
      { host: "127.0.0.1", port, path: "/", headers: { host }, agent: false, timeout: timeoutMs },
      (res) => {
        res.once("data", () => {
          const ms = performance.now() - t0;
          res.resume();
          res.on("end", () => resolve({ ms, status: res.statusCode }));
        });
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
  });
}

/** The app alone: spawn it and poll every 2 ms until a request gets an answer. */
async function baselineOnce() {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [app], {
    env: { ...process.env, PORT: String(port), STARTUP_DELAY_MS: String(STARTUP_MS) },
    stdio: "ignore",
  });
  try {
    for (let i = 0; i < 10_000; i++) {
      try {
        await firstByte(port, "x", 1000);
        return performance.now() - t0;
      } catch {
        await sleep(2);
      }
    }
    throw new Error("app never answered");
  } finally {
    child.kill("SIGKILL");
  }
}

const dir = mkdtempSync(join(tmpdir(), "thaw-bench-"));
const config = join(dir, "thaw.config.yaml");
const port = await freePort();
const services = Array.from({ length: N }, (_, i) =>
  [
    `  - name: app-${i}`,
    `    hosts: [app-${i}.localhost]`,
    "    containerConcurrency: 10",
    `    autoscaling: { target-burst-capacity: ${TBC} }`,
    "    run:",
    `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(app)}]`,
    `      env: { STARTUP_DELAY_MS: "${STARTUP_MS}" }`,
  ].join("\n"),
);
writeFileSync(
  config,
  [`listen: 127.0.0.1:${port}`, "drain: { quietPeriod: 200ms }", "services:", ...services].join("\n"),
);

const baseline = [];
for (let i = 0; i < N; i++) baseline.push(await baselineOnce());
const base = pct(baseline, 50);

const up = spawn(process.execPath, [bin, "up", "--config", config], { stdio: ["ignore", "pipe", "pipe"] });
let out = "";
up.stdout.on("data", (d) => (out += d));
up.stderr.on("data", (d) => (out += d));
for (let i = 0; i < 300 && !out.includes("gateway on"); i++) await sleep(100);

const ttfb = [];
for (let i = 0; i < N; i++) {
  const r = await firstByte(port, `app-${i}.localhost`);
  if (r.status !== 200) throw new Error(`app-${i}: status ${r.status}`);
  ttfb.push(r.ms);
}
up.kill("SIGTERM");
await new Promise((r) => up.once("exit", r));
rmSync(dir, { recursive: true, force: true });

const overhead = ttfb.map((t) => t - base);
const f = (x) => `${x.toFixed(1)} ms`;
console.log(
  `cold starts: ${N}; app start-up delay ${STARTUP_MS} ms; target-burst-capacity ${TBC}; machine shared with other jobs (noisy)`,
);
console.log(
  `baseline (app spawned directly, polled until it answers): p50 ${f(base)}, p99 ${f(pct(baseline, 99))}`,
);
console.log(`thaw up first-request TTFB: p50 ${f(pct(ttfb, 50))}, p99 ${f(pct(ttfb, 99))}`);
console.log(
  `overhead = TTFB - baseline p50: p50 ${f(pct(overhead, 50))}, p99 ${f(pct(overhead, 99))} (target p99 < 150 ms)`,
);
console.log(
  `ratio TTFB / baseline: p50 ${(pct(ttfb, 50) / base).toFixed(3)}x, p99 ${(pct(ttfb, 99) / base).toFixed(3)}x`,
);
