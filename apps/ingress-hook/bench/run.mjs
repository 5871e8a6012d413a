// `npm run bench`: warm requests through nginx + the hook (auth cache on) against nginx straight to the
// backend, in the same run, with wrk; then the in-process decision cost against a baseline loop.
// THAW_BENCH_QUICK=1 shortens every wrk run. Not part of `npm test`.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  benchCommandLine,
  canPin,
  freePort,
  groupCpuMicros,
  hasCommand,
  median,
  runWrk,
  verdict,
} from "@thaw/bench-kit";

benchCommandLine(import.meta.url, {
  name: "node bench/run.mjs",
  summary:
    "@thaw/ingress-hook's benchmark: warm requests through nginx + the hook (auth cache on) against nginx straight to the backend, with wrk in the same run, then the in-process decision cost against a baseline loop",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 2 s wrk runs and fewer rounds",
    },
  ],
  more: "Needs nginx and wrk 4.1.0 (apt-get install -y nginx-light wrk=4.1.0-3+b2), and a build (dist/). `npm run bench` in apps/ingress-hook runs it, then bench/edge.mjs and bench/growth.mjs.",
});

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const INFRA = here("../../../infra/nginx/");
const quick = process.env.THAW_BENCH_QUICK === "1";
const SECONDS = quick ? 2 : 5;
const DURATION = `${SECONDS}s`;
const ROUNDS = quick ? 1 : 2;
// The c=64 ratios are issue 19's verdicts: more, shorter rounds with the order rotating each round, so a
// burst of machine noise lands on a different scenario each time and the paired median sees through it.
const ROUNDS_64 = quick ? 2 : 5;
const SECONDS_64 = quick ? 2 : 3;
const children = [];
// wrk gets CPU 0 and every server shares CPU 1 (as in the queue-proxy bench), so a scenario's req/s is
// what its servers' CPU per request allows, and each server leads its own process group for its CPU time.
const PIN = canPin();
const pinned = (cmd, args) => (PIN ? ["taskset", ["-c", "1", cmd, ...args]] : [cmd, args]);
const cleanups = [];

function need(bin, hint) {
  if (!hasCommand(bin)) {
    console.error(`bench: ${bin} is not installed: ${hint}`);
    process.exit(1);
  }
}
need("nginx", "run `apt-get install -y nginx-light` (or bash .ci/run)");
need("wrk", "run `apt-get install -y wrk=4.1.0-3+b2`");

/** The version a tool prints about itself (wrk on stdout, nginx on stderr). */
function tool(bin, args, re) {
  const r = spawnSync(bin, args, { encoding: "utf8" });
  return (`${r.stdout}${r.stderr}`.match(re) ?? [`${bin} ?`])[0];
}

function listen(server) {
  return new Promise((r) => server.listen(0, "127.0.0.1", () => r(server.address().port)));
}

// Backend: a child process answering a small body, keep-alive on.
function startBackend() {
  const src = `const http=require("node:http");const s=http.createServer((q,r)=>{r.writeHead(200,{"content-type":"text/plain","content-length":"3"});r.end("ok\\n")});s.keepAliveTimeout=60000;s.listen(0,"127.0.0.1",()=>process.stdout.write("listening "+s.address().port+"\\n"));`;
  const child = spawn(...pinned(process.execPath, ["-e", src]), {
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  children.push(child);
  return new Promise((resolve) => {
    child.stdout.on("data", (d) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) resolve({ port: Number(m[1]), pid: child.pid });
    });
  });
}

// Activator: answers /v1/activate at once and pushes the endpoint over /v1/watch; counts calls.
function startActivator(endpoint) {
  const counts = { activate: 0, watch: 0 };
  const server = http.createServer((req, res) => {
    if (req.url === "/v1/activate") {
      counts.activate++;
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            namespace: "default",
            name: "hello",
            endpoints: [endpoint],
            coldStart: false,
            waitedMs: 0,
          }),
        );
      });
      return;
    }
    if (req.url === "/v1/watch") {
      counts.watch++;
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(
        `event: endpoints\ndata: ${JSON.stringify({ namespace: "default", name: "hello", endpoints: [endpoint], mode: "serve" })}\n\n`,
      );
      return;
    }
    res.writeHead(404).end();
  });
  return listen(server).then((port) => ({ port, counts, server }));
}

function startHook(activatorPort, dir) {
  const cfg = join(dir, "thaw.config.yaml");
  writeFileSync(
    cfg,
    "services:\n  - name: hello\n    hosts: [hello.localhost]\n    webhook: { url: http://127.0.0.1:9/scale }\n",
  );
  const child = spawn(
    ...pinned(process.execPath, [
      here("../dist/node/cli.js"),
      "--listen",
      "127.0.0.1:0",
      "--activator",
      `http://127.0.0.1:${activatorPort}`,
      "--config",
      cfg,
      // The bench's activator speaks /v1 only: no request path to route held requests through.
      "--activator-upstream",
      "none",
    ]),
    { stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  children.push(child);
  return new Promise((resolve) => {
    child.stdout.on("data", (d) => {
      const m = /listening on http:\/\/[\d.]+:(\d+)/.exec(String(d));
      if (m) resolve({ port: Number(m[1]), pid: child.pid });
    });
  });
}

function nginxPrefix() {
  const dir = mkdtempSync(join(tmpdir(), "thaw-bench-"));
  chmodSync(dir, 0o755);
  for (const d of ["tmp", "cache"]) {
    mkdirSync(join(dir, d));
    chmodSync(join(dir, d), 0o777);
  }
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startNginx(dir, conf) {
  writeFileSync(join(dir, "nginx.conf"), conf);
  // nginx.conf includes the snippets beside it: copy every one (thaw-proxy.conf, thaw-auth.conf, ...).
  for (const f of readdirSync(INFRA))
    if (f !== "nginx.conf" && f.endsWith(".conf")) copyFileSync(join(INFRA, f), join(dir, f));
  const t = spawnSync("nginx", ["-t", "-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr"], {
    encoding: "utf8",
  });
  if (t.status !== 0) throw new Error(t.stderr);
  const child = spawn(
    ...pinned("nginx", ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"]),
    { stdio: ["ignore", "ignore", "ignore"], detached: true },
  );
  children.push(child);
  await new Promise((r) => setTimeout(r, 300));
  return child.pid;
}

function directConf(port, backendPort, variable) {
  const pass = variable
    ? "set $b 127.0.0.1:" + backendPort + "; proxy_pass http://$b;"
    : "proxy_pass http://backend;";
  return `worker_processes 1; pid nginx.pid; error_log stderr warn; events { worker_connections 4096; }
http { access_log off; client_body_temp_path tmp/body; proxy_temp_path tmp/proxy; fastcgi_temp_path tmp/f; uwsgi_temp_path tmp/u; scgi_temp_path tmp/s;
  upstream backend { server 127.0.0.1:${backendPort}; keepalive 64; }
  server { listen 127.0.0.1:${port} backlog=4096;
    location / { ${pass} proxy_http_version 1.1; proxy_set_header Connection ""; proxy_set_header Host $host; } } }`;
}

function wrk(port, conns, seconds = SECONDS) {
  return runWrk({
    url: `http://127.0.0.1:${port}/`,
    connections: conns,
    seconds,
    threads: conns === 1 ? 1 : 2,
    headers: { Host: "hello.localhost" },
    cpu: PIN ? "0" : undefined,
  });
}

const fmt = (ms) => `${(ms * 1000).toFixed(0)} us`;

async function main() {
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `ingress-hook bench  (${tool("wrk", ["-v"], /wrk \S+/)}, ${tool("nginx", ["-v"], /nginx\/\S+/)}; c=1: ${ROUNDS} round(s) of ${DURATION}, c=64: ${ROUNDS_64} rotating round(s) of ${SECONDS_64}s; load average before: ${load}; 2 shared cores)`,
  );
  const backend = await startBackend();
  const backendPort = backend.port;
  const activator = await startActivator(`127.0.0.1:${backendPort}`);
  const hookDir = nginxPrefix();
  const hook = await startHook(activator.port, hookDir);
  const hookPort = hook.port;
  const pHook = await freePort();
  let conf = readFileSync(join(INFRA, "nginx.conf"), "utf8");
  conf = conf
    .split("127.0.0.1:8080")
    .join(`127.0.0.1:${pHook}`)
    .split("127.0.0.1:8081")
    .join(`127.0.0.1:${await freePort()}`)
    .split("127.0.0.1:8090")
    .join(`127.0.0.1:${hookPort}`);
  const nginxHook = await startNginx(hookDir, conf);
  // Kubernetes-style variant of the same file: the hook only gates, nginx routes to the revision's
  // upstream block with keepalive (the swap nginx.conf describes in its comment).
  const pHookSvc = await freePort();
  const svcDir = nginxPrefix();
  let svcConf = readFileSync(join(INFRA, "nginx.conf"), "utf8");
  svcConf = svcConf
    .split("127.0.0.1:8080")
    .join(`127.0.0.1:${pHookSvc}`)
    .split("127.0.0.1:8081")
    .join(`127.0.0.1:${await freePort()}`)
    .split("127.0.0.1:8090")
    .join(`127.0.0.1:${hookPort}`);
  svcConf = svcConf.replace(
    'set $thaw_route "host";',
    'set $thaw_route "host";\n      set $thaw_svc_mode 1;',
  );
  svcConf = svcConf.replace(
    /(set \$thaw_svc_mode 1;[\s\S]*?)proxy_pass http:\/\/\$thaw_target;/,
    "$1proxy_pass http://hello_revision;",
  );
  svcConf = svcConf.replace(
    "upstream thaw_hook {",
    `upstream hello_revision { server 127.0.0.1:${backendPort}; keepalive 64; }\n  upstream thaw_hook {`,
  );
  const nginxSvc = await startNginx(svcDir, svcConf);
  // infra/nginx/nginx-direct.conf: the revision's upstream first, the hook only behind a refused connect.
  const pHookDirect = await freePort();
  let directHookConf = readFileSync(join(INFRA, "nginx-direct.conf"), "utf8");
  for (const [from, to] of [
    ["127.0.0.1:8080", `127.0.0.1:${pHookDirect}`],
    ["127.0.0.1:8070", `127.0.0.1:${backendPort}`],
    ["127.0.0.1:8082", `127.0.0.1:${await freePort()}`],
    ["127.0.0.1:8090", `127.0.0.1:${hookPort}`],
    ["127.0.0.1:8089", `127.0.0.1:${activator.port}`],
  ])
    directHookConf = directHookConf.split(from).join(to);
  const nginxHookDirect = await startNginx(nginxPrefix(), directHookConf);
  const pDirect = await freePort();
  const nginxDirect = await startNginx(nginxPrefix(), directConf(pDirect, backendPort, false));
  const pDirectVar = await freePort();
  const nginxVar = await startNginx(nginxPrefix(), directConf(pDirectVar, backendPort, true));

  // warm the revision (one activation), then measure with the activator counter frozen
  await wrk(pHook, 4, 1);
  const activationsBefore = activator.counts.activate;

  // Each scenario: its port and the process groups that serve it (nginx, the hook, the backend).
  const scenarios = [
    ["nginx -> backend (upstream keepalive)", pDirect, [nginxDirect]],
    ["nginx -> backend (proxy_pass $var, as the hook path)", pDirectVar, [nginxVar]],
    ["nginx + hook (auth cache) -> pod ($thaw_upstream)", pHook, [nginxHook, hook.pid]],
    ["nginx + hook (auth cache) -> revision upstream (keepalive)", pHookSvc, [nginxSvc, hook.pid]],
    ["nginx-direct.conf + hook (hook behind a refused connect)", pHookDirect, [nginxHookDirect, hook.pid]],
  ];
  const results = {};
  /** CPU microseconds per request at 64 connections, by scenario and then by process. */
  const cpu = {};
  for (const conns of [1, 64]) {
    const rounds = conns === 64 ? ROUNDS_64 : ROUNDS;
    for (let round = 0; round < rounds; round++) {
      const order = scenarios.map((_, i) => scenarios[(i + round) % scenarios.length]);
      for (const [name, port, groups] of order) {
        const all = [...groups, backend.pid];
        const before = all.map((g) => groupCpuMicros(g));
        const r = await wrk(port, conns, conns === 64 ? SECONDS_64 : SECONDS);
        const used = all.map((g, i) => groupCpuMicros(g) - (before[i] ?? 0));
        const k = `${conns}|${name}`;
        results[k] ??= [];
        results[k].push(r);
        if (conns === 64 && r.requests > 0) {
          cpu[name] ??= [];
          cpu[name].push(used.map((us) => us / r.requests));
        }
      }
    }
  }
  for (const conns of [1, 64]) {
    console.log(`\n${conns} connection(s):`);
    for (const [name] of scenarios) {
      const rs = results[`${conns}|${name}`];
      const line = rs.map(
        (r) =>
          `p50 ${fmt(r.p50)} p99 ${fmt(r.p99)} ${r.rps.toFixed(0)} req/s${r.non2xx ? ` (${r.non2xx} non-2xx!)` : ""}`,
      );
      console.log(`  ${name.padEnd(60)} ${line.join("  |  ")}`);
    }
    const d = `${conns}|${scenarios[0][0]}`;
    const dv = `${conns}|${scenarios[1][0]}`;
    const h = `${conns}|${scenarios[2][0]}`;
    const hs = `${conns}|${scenarios[3][0]}`;
    const hd = `${conns}|${scenarios[4][0]}`;
    // median over rounds (the mean of the middle two for an even count)
    const med = (k, f) => median(results[k].map(f));
    if (conns === 1) {
      for (const q of ["p50", "p99"]) {
        const target = q === "p50" ? "< 200 us" : "< 1000 us";
        console.log(
          `  added ${q} (target ${target}): hook->upstream vs direct keepalive ${fmt(med(hs, (r) => r[q]) - med(d, (r) => r[q]))};` +
            `  hook->pod vs direct $var ${fmt(med(h, (r) => r[q]) - med(dv, (r) => r[q]))}`,
        );
      }
    } else {
      console.log(
        `  req/s ratio (target >= 0.8x): hook->upstream / direct keepalive ${(med(hs, (r) => r.rps) / med(d, (r) => r.rps)).toFixed(2)}x;` +
          `  hook->pod / direct $var ${(med(h, (r) => r.rps) / med(dv, (r) => r.rps)).toFixed(2)}x;` +
          `  hook->pod / direct keepalive ${(med(h, (r) => r.rps) / med(d, (r) => r.rps)).toFixed(2)}x`,
      );
      // Issue 19 goal 4: the warm path with the hook in nginx against nginx alone, both to the app over an
      // upstream keepalive block; ratios paired per round (a burst of load hits both), then the median.
      const paired = median(results[hs].map((r, i) => r.rps / results[d][i].rps));
      // Where the CPU goes: each scenario's servers, in microseconds per request (median of rounds).
      console.log("  CPU per request at 64 connections (median of rounds; nginx / hook / backend):");
      for (const [name, , groups] of scenarios) {
        const rows = cpu[name] ?? [];
        const parts = [...groups.map((_, i) => (i === 0 ? "nginx" : "hook")), "backend"].map(
          (who, i) => `${who} ${median(rows.map((r) => r[i] ?? 0)).toFixed(1)} us`,
        );
        console.log(`    ${name.padEnd(60)} ${parts.join(", ")}`);
      }
      // Two hook set-ups, each against nginx alone: nginx.conf asks the hook (its auth cache) on every
      // request; nginx-direct.conf asks it only when the revision's address refuses the connection.
      const pairedDirect = median(results[hd].map((r, i) => r.rps / results[d][i].rps));
      verdict(
        "nginx-direct.conf + hook warm req/s vs nginx, c=64",
        pairedDirect,
        ">=",
        0.9,
        "x",
        `${med(hd, (r) => r.rps).toFixed(0)} vs ${med(d, (r) => r.rps).toFixed(0)} req/s, paired per round`,
      );
      verdict(
        "nginx.conf (auth cache) + hook vs nginx, c=64",
        paired,
        ">=",
        0.9,
        "x",
        `${med(hs, (r) => r.rps).toFixed(0)} vs ${med(d, (r) => r.rps).toFixed(0)} req/s; CPU per request above`,
      );
    }
  }
  console.log(
    `\nactivator calls during the measured warm runs: ${activator.counts.activate - activationsBefore} (watch streams: ${activator.counts.watch})`,
  );
  activator.server.closeAllConnections?.();
  activator.server.close();
  await decisionBench();
}

async function decisionBench() {
  const { IngressHook, hostTableResolver, routeHeadersResolver, envoyDecoratorResolver } = await import(
    "../dist/index.js"
  );
  const clock = { now: () => 0, setTimeout: () => 0, clearTimeout: () => {}, sleep: async () => {} };
  const hook = new IngressHook({
    clock,
    random: Math.random,
    activator: { activate: async () => ({ kind: "unavailable", message: "bench" }) },
    resolvers: [
      routeHeadersResolver(),
      envoyDecoratorResolver(),
      hostTableResolver([
        { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
        { name: "api", namespace: "shop", hosts: ["shop.localhost"], paths: ["/api"] },
        { name: "web", namespace: "shop", hosts: ["shop.localhost"] },
      ]),
    ],
  });
  hook.cache.recordActivation("default/hello", ["10.0.0.1:8012", "10.0.0.2:8012"], 0);
  const req = {
    method: "GET",
    host: "hello.localhost",
    path: "/orders/42",
    headers: new Headers({
      host: "hello.localhost",
      "user-agent": "wrk",
      accept: "*/*",
      "x-request-id": "abc",
    }),
  };
  const N = quick ? 300_000 : 2_000_000;
  let sink = 0;
  const baseline = (r, now) => ({ kind: "allow", key: r.host, upstream: r.path, warm: now === 0 });
  const time = (fn) => {
    for (let i = 0; i < 50_000; i++) sink += fn(req, 0).kind.length; // warm up the JIT
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) sink += fn(req, 0).kind.length;
    return Number(process.hrtime.bigint() - t0) / N;
  };
  const runs = [];
  for (let i = 0; i < 3; i++) {
    runs.push({ base: time(baseline), dec: time((r, n) => hook.tryDecide(r, n)) });
  }
  const base = median(runs.map((r) => r.base));
  const dec = median(runs.map((r) => r.dec));
  console.log(`\nin-process warm decision (IngressHook.tryDecide, ${N} iterations x 3, median):`);
  console.log(
    `  decision ${dec.toFixed(0)} ns/request, baseline loop ${base.toFixed(1)} ns/request, ratio ${(dec / base).toFixed(1)}x (target < 2000 ns)`,
  );
  if (sink === 42) console.log("");
  await middlewareBench(hook);
}

// The whole middleware in a Hono app (request view, decision, next()) against the same app without it.
async function middlewareBench(hook) {
  const { Hono } = await import("hono");
  const { thawIngress } = await import("../dist/index.js");
  const plain = new Hono();
  plain.get("*", (c) => c.text("ok"));
  const gated = new Hono();
  gated.use("*", thawIngress({ hook }));
  gated.get("*", (c) => c.text("ok"));
  const N = quick ? 50_000 : 300_000;
  const headers = { host: "hello.localhost", "user-agent": "wrk", accept: "*/*" };
  const time = async (app) => {
    for (let i = 0; i < 5_000; i++)
      await app.fetch(new Request("http://hello.localhost/orders/42", { headers }));
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) await app.fetch(new Request("http://hello.localhost/orders/42", { headers }));
    return Number(process.hrtime.bigint() - t0) / N;
  };
  const runs = [];
  for (let i = 0; i < 3; i++) runs.push({ plain: await time(plain), gated: await time(gated) });
  const p = median(runs.map((r) => r.plain));
  const g = median(runs.map((r) => r.gated));
  console.log(`\nthawIngress middleware in a Hono app (app.fetch, ${N} requests x 3, median):`);
  console.log(
    `  with ${(g / 1000).toFixed(2)} us/request, without ${(p / 1000).toFixed(2)} us/request, added ${((g - p) / 1000).toFixed(2)} us`,
  );
}

try {
  await main();
} finally {
  for (const c of children) c.kill("SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  for (const f of cleanups) f();
}
