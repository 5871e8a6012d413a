// `npm run bench` (second part): warm requests through `wrangler dev` (gateway + activator Workers, local
// workerd) to an origin, against the same requests to the origin directly and through a bare Hono Worker
// that only proxies; ratios from one run, and the hook's cost per request at the edge in µs (p50 at one
// connection, gateway minus bare proxy, paired per round). The bare proxy runs like for like: in its own
// `wrangler dev` with the activator Worker beside it, as the gateway runs, and the target order rotates
// each round so neither always follows the other; both get the same warm-up. THAW_BENCH_QUICK=1 shortens it. Needs `wrk`.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fixed, freePort, hasCommand, median, runWrk, sleep } from "@thaw/bench-kit";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const ROOT = here("../../../");
const WRANGLER = join(ROOT, "node_modules/.bin/wrangler");
const quick = process.env.THAW_BENCH_QUICK === "1";
const SECONDS = quick ? 2 : 5;
const ROUNDS = quick ? 1 : 3;
const HOST = "hello.localhost";
const TOKEN = "bench-origin-token-0123456789";
const children = [];
const dirs = [];

if (!hasCommand("wrk")) {
  console.error("bench: wrk is not installed: run `apt-get install -y wrk=4.1.0-3+b2`");
  process.exit(1);
}

/** The origin: "ok\n" for every request, and a Thaw origin's POST /v1/activate (always ready). */
function startOrigin() {
  const src = `const http=require("node:http");const s=http.createServer((q,r)=>{if(q.url==="/v1/activate"){q.resume();r.writeHead(200,{"content-type":"application/json"});r.end(JSON.stringify({namespace:"default",name:"hello",endpoints:["127.0.0.1:1"],coldStart:false,waitedMs:0}));return}r.writeHead(200,{"content-type":"text/plain","content-length":"3"});r.end("ok\\n")});s.keepAliveTimeout=60000;s.listen(0,"127.0.0.1",()=>process.stdout.write("listening "+s.address().port+"\\n"));`;
  const child = spawn(process.execPath, ["-e", src], { stdio: ["ignore", "pipe", "inherit"] });
  children.push(child);
  return new Promise((resolve) => {
    child.stdout.on("data", (d) => {
      const m = /listening (\d+)/.exec(String(d));
      if (m) resolve(Number(m[1]));
    });
  });
}

/** A temporary copy of a wrangler config with vars set (the second -c gets no --var, see docs/edge.md). */
function configCopy(shipped, vars) {
  const c = JSON.parse(readFileSync(shipped, "utf8").replace(/^\s*\/\/.*$/gm, ""));
  c.main = join(dirname(shipped), c.main);
  delete c.$schema;
  c.vars = { ...c.vars, ...vars };
  const dir = mkdtempSync(join(tmpdir(), "thaw-bench-edge-"));
  dirs.push(dir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "wrangler.jsonc");
  writeFileSync(file, JSON.stringify(c));
  return file;
}

/** `wrangler dev` with the given configs on a free port; resolves once it answers. */
async function wranglerDev(configs) {
  const port = await freePort();
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--show-interactive-dev-session=false"];
  for (const c of configs) args.push("-c", c);
  args.push("--persist-to", mkdtempSync(join(tmpdir(), "thaw-bench-state-")));
  const env = {
    ...process.env,
    CI: "true",
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    NO_COLOR: "1",
  };
  const child = spawn(WRANGLER, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (out.includes("Ready on")) return url;
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`wrangler dev did not start:\n${out}`);
}

async function edgeCounters(url) {
  const r = await fetch(`${url}/_thaw/edge`);
  return (await r.json()).hook;
}

async function main() {
  const originPort = await startOrigin();
  const origin = `http://127.0.0.1:${originPort}`;
  const gateway = await wranglerDev([
    configCopy(join(ROOT, "apps/ingress-hook/wrangler.jsonc"), {
      ORIGIN_URL: origin,
      ORIGIN_TOKEN: TOKEN,
      // Warm for the whole run: the figure is the warm path, not the 2 s re-check.
      WARM_TTL_MS: "3600000",
    }),
    configCopy(join(ROOT, "apps/activator/wrangler.jsonc"), {
      THAW_ORIGIN_URL: origin,
      THAW_ORIGIN_TOKEN: TOKEN,
    }),
  ]);
  // Same shape as the gateway: a first Worker served on the port, the activator Worker bound beside it
  // (unused by the bare proxy). An earlier baseline ran alone in its dev server and came out slower than
  // the gateway (a "hook cost" of -1400 µs): the difference was the dev server's shape, not the hook.
  const bare = await wranglerDev([
    configCopy(here("bare-proxy/wrangler.jsonc"), { ORIGIN_URL: origin }),
    configCopy(join(ROOT, "apps/activator/wrangler.jsonc"), {
      THAW_ORIGIN_URL: origin,
      THAW_ORIGIN_TOKEN: TOKEN,
    }),
  ]);
  // The first request activates; everything after it is warm.
  const wake = await runWrk({ url: `${gateway}/`, connections: 1, seconds: 1, headers: { Host: HOST } });
  if (wake.errors > 0) throw new Error(`gateway answered ${wake.errors} errors while warming up`);
  // The same warm-up for the bare proxy: a cold baseline (first JIT, first origin connections) is what
  // made it look slower than the gateway.
  const warmBare = await runWrk({ url: `${bare}/`, connections: 1, seconds: 1, headers: { Host: HOST } });
  if (warmBare.errors > 0) throw new Error(`bare proxy answered ${warmBare.errors} errors while warming up`);
  const before = await edgeCounters(gateway);

  const targets = { direct: origin, bare: bare, gateway };
  const results = { 1: {}, 32: {} };
  for (const c of [1, 32]) for (const k of Object.keys(targets)) results[c][k] = [];
  const names = Object.keys(targets);
  for (let round = 0; round < ROUNDS; round++) {
    const order = names.slice(round % names.length).concat(names.slice(0, round % names.length));
    for (const c of [1, 32]) {
      for (const k of order) {
        const url = targets[k];
        const r = await runWrk({ url: `${url}/`, connections: c, seconds: SECONDS, headers: { Host: HOST } });
        if (r.errors > 0) throw new Error(`${k} at ${c} connections: ${r.errors} errors`);
        results[c][k].push(r);
      }
    }
  }
  const after = await edgeCounters(gateway);
  const med = (c, k, f) => median(results[c][k].map((r) => r[f]));

  console.log(`edge bench: ${ROUNDS} round(s) of ${SECONDS} s per target, wrk, loopback, medians`);
  for (const c of [1, 32]) {
    for (const k of Object.keys(targets)) {
      console.log(
        `  ${String(c).padStart(2)} conn  ${k.padEnd(8)} ${fixed(med(c, k, "rps"), 0).padStart(7)} req/s  p50 ${fixed(med(c, k, "p50"), 3)} ms  p99 ${fixed(med(c, k, "p99"), 3)} ms`,
      );
    }
  }
  const rows = [
    ["gateway / direct req/s at 32 conn", med(32, "gateway", "rps") / med(32, "direct", "rps"), undefined],
    ["gateway / bare Hono proxy req/s at 32 conn", med(32, "gateway", "rps") / med(32, "bare", "rps"), 0.8],
    ["gateway / bare Hono proxy req/s at 1 conn", med(1, "gateway", "rps") / med(1, "bare", "rps"), 0.8],
  ];
  for (const [name, ratio, target] of rows) {
    const verdict =
      target === undefined ? "" : `  target >= ${target}x  ${ratio >= target ? "PASS" : "MISS"}`;
    console.log(`  ${name}: ${fixed(ratio, 2)}x${verdict}`);
  }
  // Paired per round: both measured within seconds of each other, so a slow spell hits both.
  const perRound = results[1].gateway.map((g, i) => (g.p50 - results[1].bare[i].p50) * 1000);
  const hookUs = median(perRound);
  console.log(
    `  hook cost per warm request at the edge (p50 at 1 conn, gateway - bare proxy, median of rounds ${perRound.map((v) => fixed(v, 0)).join(", ")}): ${fixed(hookUs, 0)} µs  target < 200 µs  ${hookUs < 200 ? "PASS" : "MISS"}`,
  );
  if (hookUs < 0)
    console.log(
      "  (below zero: the hook's cost is under this run's noise; the bare proxy is the same shape)",
    );
  const calls = after.activations - before.activations;
  console.log(`  activator calls during the warm runs: ${calls}  target 0  ${calls === 0 ? "PASS" : "MISS"}`);
}

try {
  await main();
} finally {
  for (const c of children) c.kill("SIGTERM");
  await sleep(500);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
