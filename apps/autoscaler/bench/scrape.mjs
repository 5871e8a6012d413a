#!/usr/bin/env node
// Growth (issue 19, goal 5): the autoscaler scraping N pods every second, on one core. The real
// AutoscalerService runs here with N revisions of one ready pod each (so every pod is scraped every second,
// none skipped by Knative's pod sampling), its scrape loop fetching real loopback HTTP metrics ports served
// by 4 child processes (bench/stat-servers.mjs). The figure is this process's CPU time (user + system)
// over a measured window, as a share of one core, for N = 10, 100, 1000. Run against dist (build first).
// Env: THAW_BENCH_QUICK=1 for a 3 s window instead of 6 s.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { benchCommandLine, growth, sleep, verdict } from "@thaw/bench-kit";
import { systemClock } from "@thaw/clock";
import { AutoscalerService, httpScrapeStat, policyFor, silentLogger } from "../dist/index.js";

benchCommandLine(import.meta.url, {
  name: "node bench/scrape.mjs",
  summary:
    "@thaw/autoscaler-service's growth: the real AutoscalerService scraping N pods every second over loopback (4 stat-server processes), its CPU as a share of one core for N = 10, 100 and 1,000",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = a 3 s measured window instead of 6 s",
    },
  ],
  more: "Runs against dist/ (build first).",
});

const WINDOW_MS = process.env.THAW_BENCH_QUICK ? 3000 : 6000;
const SIZES = [10, 100, 1000];
const PROCS = 4;

/** Starts the stat servers: `count` ports spread over PROCS processes. */
async function statServers(count) {
  const per = Math.ceil(count / PROCS);
  const children = [];
  const ports = [];
  for (let i = 0; i < PROCS && ports.length < count; i++) {
    const n = Math.min(per, count - ports.length);
    const child = spawn(
      process.execPath,
      [new URL("./stat-servers.mjs", import.meta.url).pathname, String(n)],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    children.push(child);
    const [line] = await once(child.stdout, "data");
    ports.push(...JSON.parse(String(line)).ports);
  }
  return {
    ports,
    stop: () => {
      for (const c of children) c.kill("SIGKILL");
    },
  };
}

/** A scaler whose pods are already there: one ready pod per revision, each with its metrics URL. */
function fixedScaler(ports) {
  const started = Date.now() - 3_600_000;
  return {
    scale: async () => {},
    replicas: () => 1,
    pods: (rev) => {
      const i = Number(rev.name.slice(4));
      return [
        {
          name: `${rev.name}-pod`,
          address: "127.0.0.1:1",
          metricsUrl: `http://127.0.0.1:${ports[i]}/metrics`,
          ready: true,
          startedAt: started,
        },
      ];
    },
    subscribe: () => () => {},
    close: async () => {},
  };
}

async function measure(n) {
  const servers = await statServers(n);
  const counts = { ok: 0, failed: 0 };
  // The service's default scrape, counted, so the figure is known to come from answered scrapes.
  const scrape = async (url) => {
    const r = await httpScrapeStat(url);
    counts[r.ok ? "ok" : "failed"]++;
    return r;
  };
  const service = new AutoscalerService({
    scaler: fixedScaler(servers.ports),
    clock: systemClock,
    logger: silentLogger,
    scrape,
  });
  const policy = policyFor({ containerConcurrency: 10 });
  if (!policy.ok) throw new Error(JSON.stringify(policy.issues));
  for (let i = 0; i < n; i++) service.addRevision({ namespace: "bench", name: `rev-${i}` }, policy.value);
  service.start();
  await sleep(2500); // connections open, first scrapes and ticks done
  const before = { ...counts };
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(WINDOW_MS);
  const c = process.cpuUsage(c0);
  const wall = performance.now() - t0;
  const ok = counts.ok - before.ok;
  const failed = counts.failed - before.failed;
  await service.stop();
  servers.stop();
  return { pct: ((c.user + c.system) / 1000 / wall) * 100, perSecond: (ok * 1000) / wall, failed };
}

console.log(
  `autoscaler scrape: N revisions x 1 pod, scraped every 1 s over loopback HTTP; ${WINDOW_MS / 1000} s window`,
);
const points = [];
for (const n of SIZES) {
  const r = await measure(n);
  console.log(
    `  ${String(n).padStart(5)} pods: ${r.pct.toFixed(1)} % of one core, ${r.perSecond.toFixed(0)} scrapes/s answered, ${r.failed} failed`,
  );
  // On a loaded machine some answers take over a second and the service skips a pod's next round; the
  // figure is then the CPU per answered scrape times n scrapes a second, so fewer answers do not flatter it.
  points.push([n, (r.pct * n) / Math.max(1, r.perSecond)]);
}
// Per pod: % of a core x 10,000 is µs of CPU each second, one scrape per pod a second.
growth("scrape CPU by pods scraped every 1 s", points, {
  unit: "% core",
  item: "pod",
  itemUnit: "us CPU per scrape",
  itemScale: 10_000,
});
verdict("autoscaler scraping 1,000 pods every 1 s (CPU)", points.at(-1)[1], "<", 25, "% core");
