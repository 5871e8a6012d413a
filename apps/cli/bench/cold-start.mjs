#!/usr/bin/env node
// Cold-start overhead (issue 19, goal 1): time to first byte of the first request to a service at zero,
// minus the app's own time to listen (listen() returned minus its process start, marked by the app itself:
// bench/cold-app.mjs), through `thaw up` alone and through nginx + the hook (infra/nginx/nginx.conf, its
// forward-auth pointed at the same `thaw up`). Each cold start is one service woken once; services are
// woken one after the other, BATCH per `thaw up`, so at most BATCH pods live at a time.
// The breakdown per phase lines up three sets of marks in wall time: the client's (sent, first byte),
// thaw up's (the cold-start record it logs with --log-format json, the same record as the dashboard's and
// thaw_cold_start_phase_seconds': queued, scaleDecision, podStarted, firstReady and its moments
// queueProxyListening, podReady; epoch ms) and the app's.
// Beside each path, the same run measures the floor no proxy can go under: the app alone, exec'd by this
// process with a client polling its port every 1 ms and sending the moment it accepts (spawn -> first byte,
// less the app's own start-up); the overhead is printed over that floor and as a ratio of it.
// Env: THAW_BENCH_QUICK=1 for 10 cold starts per path instead of 50; THAW_BENCH_COLD_N=<n> for n;
// THAW_BENCH_TBC (target-burst-capacity, default Knative's 211); THAW_BENCH_COLD_PATHS=up,nginx (default both);
// THAW_BENCH_COLD_SAMPLES=1 prints every sample's phases too.
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchCommandLine, freePort, quantile, sleep, verdict } from "@thaw/bench-kit";

benchCommandLine(import.meta.url, {
  name: "node bench/cold-start.mjs",
  summary:
    "thaw's cold-start overhead (apps/cli): time to first byte of the first request to a service at zero, less the app's own start-up, through `thaw up` alone and through nginx + the hook, phase by phase, beside the floor of the app alone",
  env: [
    {
      name: "THAW_BENCH_COLD_N",
      default: "50; 10 with THAW_BENCH_QUICK",
      help: "cold starts per path",
    },
    {
      name: "THAW_BENCH_COLD_PATHS",
      default: "up,nginx",
      help: "which paths, comma-separated",
    },
    {
      name: "THAW_BENCH_TBC",
      default: "211",
      help: "target-burst-capacity of the services (Knative's default keeps the activator in the path)",
    },
    {
      name: "THAW_BENCH_COLD_SAMPLES",
      help: "1 = also print each sample's phases",
    },
    {
      name: "THAW_BENCH_COLD_KEEP",
      help: "1 = keep the app's marks and thaw up's log, and print where",
    },
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 10 cold starts per path instead of 50",
    },
  ],
  more: "Needs nginx for the nginx path, and a build (dist/).",
});

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "cold-app.mjs");
const bin = join(here, "../dist/main.js");
const INFRA = join(here, "../../../infra/nginx");
const N = Number(process.env.THAW_BENCH_COLD_N ?? (process.env.THAW_BENCH_QUICK ? 10 : 50));
const BATCH = 10;
const TBC = process.env.THAW_BENCH_TBC ?? "211";
const PATHS = (process.env.THAW_BENCH_COLD_PATHS ?? "up,nginx").split(",");
const TOKEN = "change-me-to-a-long-random-string"; // the bearer infra/nginx/nginx.conf sends to the hook
const now = () => performance.timeOrigin + performance.now();

/** One GET; resolves with the wall times it was sent and its first body byte arrived. */
function firstByte(port, host, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const sent = now();
    const req = http.get(
      { host: "127.0.0.1", port, path: "/", headers: { host }, agent: false, timeout: timeoutMs },
      (res) => {
        res.once("data", () => {
          const first = now();
          res.resume();
          res.on("end", () => resolve({ sent, first, status: res.statusCode }));
        });
      },
    );
    req.on("error", reject);
    req.on("timeout", () => req.destroy(new Error("timeout")));
  });
}

function readLines(file) {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l));
  } catch {
    return [];
  }
}

/** The `coldstart` records in thaw up's JSON log (one pino line each, docs/dashboard.md). */
function coldStartRecords(log) {
  const out = [];
  for (const line of log.split("\n")) {
    if (!line.includes('"coldstart"')) continue;
    try {
      const r = JSON.parse(line);
      if (r.msg === "coldstart") out.push(r);
    } catch {
      // Not a log line (pod output interleaved): skip.
    }
  }
  return out;
}

/** A user-space nginx running infra/nginx/nginx.conf with the hook and activator both at `gateway`. */
async function startNginx(gatewayPort) {
  const dir = mkdtempSync(join(tmpdir(), "thaw-cold-nginx-"));
  chmodSync(dir, 0o755);
  for (const d of ["tmp", "cache"]) {
    mkdirSync(join(dir, d), { recursive: true });
    chmodSync(join(dir, d), 0o777);
  }
  const port = await freePort();
  const h2Port = await freePort();
  const conf = readFileSync(join(INFRA, "nginx.conf"), "utf8")
    .replaceAll("127.0.0.1:8080", `127.0.0.1:${port}`)
    .replaceAll("127.0.0.1:8081", `127.0.0.1:${h2Port}`)
    .replaceAll("127.0.0.1:8090", `127.0.0.1:${gatewayPort}`)
    .replaceAll("127.0.0.1:8089", `127.0.0.1:${gatewayPort}`);
  writeFileSync(join(dir, "nginx.conf"), conf);
  // Every file nginx.conf includes sits beside it.
  for (const f of readdirSync(INFRA).filter((n) => n.endsWith(".conf") && n !== "nginx.conf")) {
    writeFileSync(join(dir, f), readFileSync(join(INFRA, f)));
  }
  const args = ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr"];
  const t = spawnSync("nginx", ["-t", ...args], { encoding: "utf8" });
  if (t.status !== 0) throw new Error(`nginx -t failed (apt-get install -y nginx-light):\n${t.stderr}`);
  const child = spawn("nginx", [...args, "-g", "daemon off;"], { stdio: ["ignore", "ignore", "inherit"] });
  for (let i = 0; i < 100; i++) {
    const ok = await new Promise((r) => {
      const s = http.get({ host: "127.0.0.1", port, path: "/_nope", agent: false }, (res) => {
        res.resume();
        r(true);
      });
      s.on("error", () => r(false));
    });
    if (ok) break;
    await sleep(50);
  }
  return {
    port,
    stop: async () => {
      child.kill("SIGTERM");
      await new Promise((r) => (child.exitCode !== null ? r() : child.once("exit", r)));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `count` cold starts through one `thaw up` (and nginx in front when `viaNginx`); one sample each. */
async function batch(first, count, viaNginx) {
  const dir = mkdtempSync(join(tmpdir(), "thaw-cold-"));
  const config = join(dir, "thaw.config.yaml");
  const appMarks = join(dir, "app-marks.jsonl");
  const port = await freePort();
  const names = Array.from({ length: count }, (_, i) => `app-${first + i}`);
  const services = names.map((name) =>
    [
      `  - name: ${name}`,
      `    hosts: [${name}.localhost]`,
      "    containerConcurrency: 10",
      `    autoscaling: { target-burst-capacity: ${TBC} }`,
      "    run:",
      `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(app)}]`,
      `      env: { COLD_APP_MARKS: ${JSON.stringify(appMarks)} }`,
    ].join("\n"),
  );
  writeFileSync(
    config,
    [
      `listen: 127.0.0.1:${port}`,
      ...(viaNginx ? [`token: ${TOKEN}`] : []),
      "drain: { quietPeriod: 200ms }",
      "services:",
      ...services,
    ].join("\n"),
  );
  const up = spawn(process.execPath, [bin, "up", "--config", config, "--log-format", "json"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  up.stdout.on("data", (d) => (out += d));
  up.stderr.on("data", (d) => (out += d));
  const started = () => out.includes('"msg":"thaw up listening"');
  for (let i = 0; i < 300 && !started(); i++) await sleep(100);
  if (!started()) throw new Error(`thaw up did not start:\n${out}`);
  const nginx = viaNginx ? await startNginx(port) : undefined;
  const client = [];
  try {
    for (const name of names) {
      await sleep(100); // let the previous pod's start-up settle
      const r = await firstByte(nginx?.port ?? port, `${name}.localhost`);
      if (r.status !== 200) throw new Error(`${name}: status ${r.status}`);
      client.push({ name, ...r, firstOfUp: client.length === 0 });
    }
    await sleep(50); // the app writes its marks just after its first answer
  } finally {
    await nginx?.stop();
    up.kill("SIGTERM");
    await new Promise((r) => (up.exitCode !== null ? r() : up.once("exit", r)));
  }
  const records = coldStartRecords(out);
  const apps = readLines(appMarks);
  if (process.env.THAW_BENCH_COLD_KEEP) {
    writeFileSync(join(dir, "thaw-up.log"), out);
    console.log(`marks and thaw up's log kept in ${dir}`);
  } else rmSync(dir, { recursive: true, force: true });
  return client.map((c) => {
    const rec = records.find((r) => r.revision === c.name) ?? { phases: [], moments: {} };
    const at = Object.fromEntries(rec.phases.map((p) => [p.phase, p.at]));
    const a = apps.find((x) => x.pod === rec.pod) ?? {};
    return { ...c, ...at, ...rec.moments, app: a };
  });
}

/**
 * The phases of one cold start in ms (NaN where a mark is missing); the first eight add up to TTFB.
 * thaw up's moments are whole epoch ms (its clock), the client's and the app's sub-millisecond.
 */
function phases(s) {
  const a = s.app;
  return {
    "request -> queued (gateway, hook, activator)": s.queued - s.sent,
    "queued -> scale decision (autoscaler)": s.scaleDecision - s.queued,
    "scale decision -> app process start (ports, spawn)": a.start - s.scaleDecision,
    "app's own start-up (start -> listen; subtracted)": a.listen - a.start,
    "readiness detection (app listen -> queue-proxy probe)": a.firstConn - a.listen,
    "queue-proxy -> activator healthy (firstReady)": s.firstReady - a.firstConn,
    "forward (healthy -> request at app)": a.firstReq - s.firstReady,
    "answer (request at app -> first byte at client)": s.first - a.firstReq,
    "  queue-proxy start-up (decision -> listening; parallel)": s.queueProxyListening - s.scaleDecision,
    "  queue-proxy listening after the app (0 = off path)": Math.max(0, s.queueProxyListening - a.listen),
    "  kubelet-style queue probe (app listen -> podReady)": s.podReady - a.listen,
  };
}

/**
 * The floor: `cold-app.mjs` exec'd here (no thaw up, no queue-proxy), its port polled every 1 ms, one GET sent
 * on the first accepted connection. Returns spawn -> first byte minus the app's own `listen - start`, per start.
 */
async function appAlone(count) {
  const dir = mkdtempSync(join(tmpdir(), "thaw-cold-alone-"));
  const marks = join(dir, "marks.jsonl");
  const out = [];
  try {
    for (let i = 0; i < count; i++) {
      await sleep(100);
      const port = await freePort();
      const spawned = now();
      const child = spawn(process.execPath, [app], {
        env: { ...process.env, PORT: String(port), COLD_APP_MARKS: marks, HOSTNAME: `alone-${i}` },
        stdio: "ignore",
      });
      try {
        let r;
        for (let tries = 0; tries < 5000 && r === undefined; tries++) {
          r = await firstByte(port, "alone.localhost").catch(() => undefined);
          if (r === undefined) await sleep(1);
        }
        if (r === undefined) throw new Error("the app alone never answered");
        await sleep(50); // the app writes its marks just after its first answer
        const a = readLines(marks).find((m) => m.pod === `alone-${i}`);
        out.push(a ? r.first - spawned - (a.listen - a.start) : Number.NaN);
      } finally {
        child.kill("SIGKILL");
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

const f = (x) => (Number.isFinite(x) ? x.toFixed(1).padStart(7) : "      -");
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

async function run(path) {
  const viaNginx = path === "nginx";
  const label = viaNginx ? "nginx + hook" : "thaw up";
  const loadBefore = load();
  const samples = [];
  for (let i = 0; i < N; i += BATCH) samples.push(...(await batch(i, Math.min(BATCH, N - i), viaNginx)));
  const overhead = samples.map((s) => s.first - s.sent - (s.app.listen - s.app.start));
  const ttfb = samples.map((s) => s.first - s.sent);
  console.log(
    `\ncold start through ${label}: ${samples.length} cold starts, app start-up 300-400 ms, ` +
      `target-burst-capacity ${TBC}; load average before ${loadBefore}, after ${load()}`,
  );
  console.log(`  TTFB p50 ${f(quantile(ttfb, 50))} ms, p99 ${f(quantile(ttfb, 99))} ms`);
  console.log("  breakdown (ms)                                               p50     p90     p99     max");
  const ph = samples.map(phases);
  if (process.env.THAW_BENCH_COLD_SAMPLES) {
    for (const [i, p] of ph.entries()) {
      const cells = Object.entries(p).map(([k, v]) => `${k.trim().split(" ")[0]}=${f(v).trim()}`);
      console.log(
        `  sample ${i}${samples[i].firstOfUp ? " (first of its thaw up)" : ""}: ${cells.join(" ")}`,
      );
    }
  }
  for (const k of Object.keys(ph[0] ?? {})) {
    const xs = ph.map((p) => p[k]);
    const max = Math.max(...xs.filter(Number.isFinite));
    console.log(
      `  ${k.padEnd(56)} ${f(quantile(xs, 50))} ${f(quantile(xs, 90))} ${f(quantile(xs, 99))} ${f(max)}`,
    );
  }
  console.log(
    `  ${"overhead = TTFB - app's own start-up".padEnd(56)} ${f(quantile(overhead, 50))} ${f(quantile(overhead, 90))} ${f(quantile(overhead, 99))} ${f(Math.max(...overhead))}`,
  );
  // The first cold start of each `thaw up` also runs its gateway, hook and activator code for the first time.
  const firsts = overhead.filter((_, i) => samples[i].firstOfUp);
  const rest = overhead.filter((_, i) => !samples[i].firstOfUp);
  console.log(
    `  ${"  overhead, first cold start of each thaw up".padEnd(56)} ${f(quantile(firsts, 50))} ${f(quantile(firsts, 90))} ${f(quantile(firsts, 99))} ${f(Math.max(...firsts))}`,
  );
  console.log(
    `  ${"  overhead, the others".padEnd(56)} ${f(quantile(rest, 50))} ${f(quantile(rest, 90))} ${f(quantile(rest, 99))} ${f(Math.max(...rest))}`,
  );
  // The floor of the same run, interleaved with the paths so both see the same load.
  const alone = await appAlone(samples.length);
  const a50 = quantile(alone, 50);
  const a99 = quantile(alone, 99);
  console.log(
    `  ${"the app alone (exec, port polled every 1 ms, one GET)".padEnd(56)} ${f(a50)} ${f(quantile(alone, 90))} ${f(a99)} ${f(Math.max(...alone))}`,
  );
  const o50 = quantile(overhead, 50);
  const o99 = quantile(overhead, 99);
  const ratios = `${(o50 / a50).toFixed(2)}x / ${(o99 / a99).toFixed(2)}x the app alone (p50 / p99); above it ${(o50 - a50).toFixed(1)} / ${(o99 - a99).toFixed(1)} ms`;
  console.log(`  overhead ${ratios}`);
  verdict(`cold-start overhead p50 (${label}, ${samples.length} starts)`, o50, "<", 15, "ms", ratios);
  verdict(`cold-start overhead p99 (${label}, ${samples.length} starts)`, o99, "<", 30, "ms", ratios);
}

for (const p of PATHS) await run(p);
