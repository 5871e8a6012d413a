#!/usr/bin/env node
// A/B of queue-proxy builds against nginx and (with KN_QUEUE_BIN) Knative's queue-proxy, interleaved:
// wrk on CPU 0, backend and proxies on CPU 1 (as run.mjs), CC 0 and no request metrics (the hot path).
//
//   node bench/ab.mjs --qp base=bench-results/base/main.js --qp new=dist/main.js --rounds 5
//   node bench/ab.mjs --qp new=dist/main.js --conns 1 --rounds 7 --duration 5
//   node bench/ab.mjs --qp qp=dist/main.js --qp qp-st=dist/main.js,--single-threaded --c1 5000
//
// Each round measures every target once per connection count, in a rotated order; the table gives the
// median over rounds and, for c=1, the added latency over the direct backend measured in the same round.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import {
  canConnect,
  canPin,
  fixed as f,
  groupCpuMicros,
  median,
  runWrk,
  sleep,
  startGroup,
  waitPort,
} from "@thaw/bench-kit";
import { qpEnv } from "./servers/qp-env.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    qp: { type: "string", multiple: true, default: [`new=${join(HERE, "..", "dist", "main.js")}`] },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "3" },
    conns: { type: "string", default: "1,64" },
    "base-port": { type: "string", default: "19800" },
    "node-flags": { type: "string", default: "" },
    "no-peers": { type: "boolean", default: false },
    c1: { type: "string", default: "0" },
  },
});
const ROUNDS = Number(opt.rounds);
const DUR = Number(opt.duration);
const CONNS = opt.conns.split(",").map(Number);
const B = Number(opt["base-port"]);
const PIN = canPin();
const SERVER_CPU = PIN ? "1" : undefined;

const flagsOf = (main) =>
  (/^#!\S*env -S node(.*)$/m.exec(readFileSync(main, "utf8").split("\n")[0])?.[1] ?? "")
    .split(" ")
    .filter(Boolean);

const targets = [{ name: "direct", port: B }];
let port = B + 1;
for (const spec of opt.qp) {
  // name=path[,node-flag...]: flags for this build only (e.g. qp-st=dist/main.js,--single-threaded).
  const [name, rest] = spec.split("=");
  const [main, ...flags] = rest.split(",");
  targets.push({ name, port: port++, main: resolve(main), flags });
}
if (!opt["no-peers"]) {
  targets.push({ name: "nginx", port: port++ });
  if (process.env.KN_QUEUE_BIN) targets.push({ name: "kn-queue", port: port++ });
}

const work = join(HERE, "..", "bench-results", `ab-nginx-${process.pid}`);
/** nginx.conf for one worker proxying port `p` to the backend (as run.mjs's nginx target). */
function nginxConf(p) {
  return `worker_processes 1; daemon off; pid ${work}/nginx.pid; error_log stderr error;
events { worker_connections 4096; }
http { access_log off; client_body_temp_path ${work}/body; proxy_temp_path ${work}/proxy;
  fastcgi_temp_path ${work}/fcgi; uwsgi_temp_path ${work}/uwsgi; scgi_temp_path ${work}/scgi;
  upstream app { server 127.0.0.1:${B}; keepalive 256; }
  server { listen 127.0.0.1:${p}; keepalive_requests 1000000;
    location / { proxy_pass http://app; proxy_http_version 1.1; proxy_set_header Connection ""; } } }`;
}

mkdirSync(work, { recursive: true });
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const extra = opt["node-flags"].split(" ").filter(Boolean);
for (const t of targets) {
  if (await canConnect(t.port)) throw new Error(`port ${t.port} busy`);
  const start = (cmd, args, env = {}) => startGroup(t.name, cmd, args, { env, cpu: SERVER_CPU });
  if (t.name === "direct")
    t.child = start(process.execPath, [join(HERE, "servers", "backend.mjs"), String(B)]);
  else if (t.main)
    t.child = start(process.execPath, [...flagsOf(t.main), ...extra, ...t.flags, t.main], qpEnv(B, t.port));
  else if (t.name === "nginx") {
    writeFileSync(join(work, "nginx.conf"), nginxConf(t.port));
    t.child = start("nginx", ["-p", work, "-c", join(work, "nginx.conf")]);
  } else
    t.child = start(process.env.KN_QUEUE_BIN, [], {
      ...qpEnv(B, t.port),
      TRACING_CONFIG_BACKEND: "none",
      SERVING_ENABLE_REQUEST_LOG: "false",
    });
  await waitPort(t.port, t.child);
}
for (const t of targets)
  await runWrk({
    url: `http://127.0.0.1:${t.port}/`,
    connections: 64,
    seconds: 1,
    cpu: PIN ? "0" : undefined,
  });

if (Number(opt.c1) > 0) {
  const arg = JSON.stringify({
    targets: targets.map(({ name, port }) => ({ name, port })),
    rounds: ROUNDS,
    requests: Number(opt.c1),
  });
  const cmd = PIN
    ? ["taskset", ["-c", "0", process.execPath, join(HERE, "c1-client.mjs"), arg]]
    : [process.execPath, [join(HERE, "c1-client.mjs"), arg]];
  const out = spawnSync(cmd[0], cmd[1], { encoding: "utf8", timeout: 600_000 });
  if (out.status !== 0) throw new Error(`c1-client failed: ${out.stderr}`);
  const { rounds } = JSON.parse(out.stdout);
  console.log(
    `c=1 interleaved: ${rounds.length} rounds, ${rounds[0].direct.n} samples per target per round; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
  );
  for (const t of targets) {
    const add = rounds.map((r) => r[t.name].p99 - r.direct.p99);
    const p50 = rounds.map((r) => r[t.name].p50 - r.direct.p50);
    console.log(
      `${t.name.padEnd(10)} p99 ${rounds.map((r) => f(r[t.name].p99, 3)).join(" ")}  +p50 ${f(median(p50), 3)}  +p99 median ${f(median(add), 3)} [${add.map((v) => f(v, 3)).join(" ")}]`,
    );
  }
  process.exit(0);
}
const rows = {};
for (let round = 0; round < ROUNDS; round++) {
  const order = targets.slice(round % targets.length).concat(targets.slice(0, round % targets.length));
  for (const conns of CONNS) {
    const by = {};
    for (const t of order) {
      const c0 = groupCpuMicros(t.child.pid);
      const r = await runWrk({
        url: `http://127.0.0.1:${t.port}/`,
        connections: conns,
        seconds: DUR,
        cpu: PIN ? "0" : undefined,
      });
      r.cpu = (groupCpuMicros(t.child.pid) - c0) / r.requests;
      by[t.name] = r;
      await sleep(200);
    }
    for (const t of targets) {
      const r = by[t.name];
      r.addP50 = r.p50 - by.direct.p50;
      r.addP99 = r.p99 - by.direct.p99;
      r.xNginx = by.nginx ? r.rps / by.nginx.rps : Number.NaN;
      r.cpuXNginx = by.nginx ? r.cpu / by.nginx.cpu : Number.NaN;
      const key = `${t.name}@${conns}`;
      rows[key] = [...(rows[key] ?? []), r];
    }
  }
  process.stderr.write(`round ${round + 1}/${ROUNDS}\n`);
}
console.log(
  `ab: ${ROUNDS} rounds x ${DUR}s; load ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
for (const conns of CONNS) {
  for (const t of targets) {
    const rs = rows[`${t.name}@${conns}`];
    const m = (k) => median(rs.map((r) => r[k]));
    const each = (k) => rs.map((r) => f(r[k], conns === 1 ? 3 : 1)).join(" ");
    console.log(
      conns === 1
        ? `c=1  ${t.name.padEnd(10)} p50 ${f(m("p50"), 3)} p99 ${f(m("p99"), 3)}  +p50 ${f(m("addP50"), 3)}  +p99 ${f(m("addP99"), 3)} [${each("addP99")}] cpu/req ${f(m("cpu"), 1)}`
        : `c=${conns} ${t.name.padEnd(10)} rps ${f(m("rps"), 0)} x nginx ${f(m("xNginx"), 3)}  cpu/req ${f(m("cpu"), 1)} us [${each("cpu")}] x nginx ${f(m("cpuXNginx"), 3)}`,
    );
  }
}
process.exit(0);
