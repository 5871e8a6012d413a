#!/usr/bin/env node
// Growth (issue 19, goal 5): the activator holding queued requests across cold revisions, by RSS. A real
// `thaw-activator` process (bin/thaw-activator.mjs, its own process so its RSS is its own) with R revisions
// that have no pods (THAW_REVISIONS_FILE, endpoints []), and this process opening Q = 10 x R concurrent
// requests to its request path (one connection each, Knative's revision headers), spread evenly. Once the
// activator's GET /v1/status counts all Q queued, its RSS is read from /proc (peak sampled every 100 ms).
// Curve: Q = 100, 1,000, 10,000 (R = 10, 100, 1,000); verdicts: 10,000 queued over 1,000 revisions < 120 MB
// (issue 30), printed with its ratio to the floor measured in the same run, and the growth of the peak above
// the idle process per held request, 100x / 1x <= 1.5x.
// Env: REVS=10,100 picks the revision counts. After a MISS (or with THAW_BENCH_PROFILE=always) the largest
// case runs once more and the activator writes a heap snapshot while it holds every request; the bench
// prints its live bytes by constructor per held request (bench-results/profiles/).
// THAW_BENCH_QUICK=1 changes nothing (the run is short already).
import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchCommandLine,
  curve,
  freePort,
  growth,
  printHeapSnapshot,
  profileDir,
  shouldProfile,
  sleep,
  verdict,
} from "@thaw/bench-kit";
import { rssKiB } from "@thaw/bench-kit/rss";

benchCommandLine(import.meta.url, {
  name: "node bench/queued.mjs",
  summary:
    "@thaw/activator's growth in memory: a real thaw-activator holding 10 queued requests per revision over R cold revisions (no pods), its peak RSS for each R against a bare node:http floor; verdict: 10,000 queued over 1,000 revisions < 120 MB",
  env: [
    {
      name: "REVS",
      default: "10,100,1000",
      help: "the revision counts R, comma-separated, smallest first",
    },
    {
      name: "THAW_BENCH_QUICK",
      help: "changes nothing here (the run is short already)",
    },
  ],
  more: "After a MISS (or with THAW_BENCH_PROFILE=always) the largest case runs once more and the activator writes a heap snapshot, printed by constructor per held request.",
});

const bin = new URL("../bin/thaw-activator.mjs", import.meta.url).pathname;
const floorBin = new URL("./bare-holder.mjs", import.meta.url).pathname;
// Run the bin as its shebang would (`env -S node <V8 flags>`), so the figure is the deployed settings'.
const binFlags = (/^#!\S*env -S node(.*)$/.exec(readFileSync(bin, "utf8").split("\n")[0])?.[1] ?? "")
  .split(" ")
  .filter(Boolean);

function getJson(port, path) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => {
        try {
          resolve(JSON.parse(body));
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on("error", reject);
  });
}

/** How many requests the process on `port` holds: the activator's queued count, or the floor's /count. */
const heldCount = (port, bare) =>
  bare ? getJson(port, "/count") : getJson(port, "/v1/status").then((s) => s.queued ?? 0);

/** Signals `child` to write a heap snapshot into `dir`, waits until it is complete (bounded), moves it to `to`. */
async function takeSnapshot(child, dir, to) {
  child.kill("SIGUSR2");
  let last = -1;
  for (let i = 0; i < 120; i++) {
    await sleep(500);
    const f = readdirSync(dir).find((n) => n.endsWith(".heapsnapshot"));
    const size = f ? statSync(join(dir, f)).size : -1;
    // V8 writes the file in one go: a size that held still for half a second is the whole file.
    if (f && size > 0 && size === last) {
      renameSync(join(dir, f), to);
      return;
    }
    last = size;
  }
  console.log("  (no complete heap snapshot within 60 s)");
}

/**
 * Starts the activator (or the bare floor) over `revisions` cold revisions, holds `perRevision` requests on
 * each, and measures its RSS. With `snapshot`, the process writes a V8 heap snapshot there once it holds
 * them all.
 */
async function measure(revisions, perRevision, bare = false, snapshot = undefined) {
  const dir = mkdtempSync(join(tmpdir(), "thaw-act-queued-"));
  const file = join(dir, "revisions.json");
  const revs = Array.from({ length: revisions }, (_, i) => ({
    namespace: "bench",
    name: `rev-${i}`,
    endpoints: [],
    containerConcurrency: 10,
    timeoutSeconds: 120,
  }));
  writeFileSync(file, JSON.stringify(revs));
  const port = await freePort();
  const snapFlags = snapshot ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${dir}`] : [];
  const args = bare
    ? [...binFlags, ...snapFlags, floorBin, String(port)]
    : [...binFlags, ...snapFlags, bin, "--host", "127.0.0.1", "--port", String(port)];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, THAW_REVISIONS_FILE: file },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const reqs = [];
  try {
    for (let i = 0; i < 100; i++) {
      if (
        await heldCount(port, bare).then(
          () => true,
          () => false,
        )
      )
        break;
      await sleep(100);
    }
    const idleKiB = rssKiB(child.pid);
    let peakKiB = idleKiB;
    const sampler = setInterval(() => {
      peakKiB = Math.max(peakKiB, rssKiB(child.pid));
    }, 100);
    const total = revisions * perRevision;
    const before = await heldCount(port, bare);
    for (let i = 0; i < total; i++) {
      const rev = revs[i % revisions];
      const req = http.get({
        host: "127.0.0.1",
        port,
        path: "/",
        agent: false,
        headers: { "knative-serving-namespace": rev.namespace, "knative-serving-revision": rev.name },
      });
      req.on("error", () => {});
      req.on("response", (res) => {
        res.resume();
        console.log(`  unexpected answer while cold: ${res.statusCode}`);
      });
      reqs.push(req);
      if (i % 500 === 499) await sleep(10); // let the activator accept as they come
    }
    let queued = 0;
    for (let i = 0; i < 600 && queued < total; i++) {
      await sleep(100);
      queued = (await heldCount(port, bare)) - before;
    }
    await sleep(1000);
    peakKiB = Math.max(peakKiB, rssKiB(child.pid));
    const heldKiB = rssKiB(child.pid);
    if (snapshot) await takeSnapshot(child, dir, snapshot);
    clearInterval(sampler);
    return { total, queued, idleMiB: idleKiB / 1024, heldMiB: heldKiB / 1024, peakMiB: peakKiB / 1024 };
  } finally {
    for (const r of reqs) r.destroy();
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `activator: queued requests held across cold revisions (no pods), RSS of the activator process (node ${binFlags.join(" ")})`,
);
const points = [];
const above = [];
for (const r of (process.env.REVS ?? "10,100,1000").split(",").map(Number)) {
  const m = await measure(r, 10);
  points.push([m.total, m.peakMiB]);
  above.push([m.total, m.peakMiB - m.idleMiB]);
  console.log(
    `  ${String(m.total).padStart(6)} requests over ${String(r).padStart(4)} revisions: ${m.queued} queued; ` +
      `RSS idle ${m.idleMiB.toFixed(1)} MB, holding ${m.heldMiB.toFixed(1)} MB, peak ${m.peakMiB.toFixed(1)} MB`,
  );
  if (m.queued < m.total)
    console.log(`  (only ${m.queued} of ${m.total} queued: the figure is not for ${m.total})`);
}
curve("peak RSS MB by queued requests (1x, 10x, 100x)", points, "MB");
// What the held requests themselves cost: the peak above the idle process, per request.
growth("held-request memory (peak RSS above idle) by queued requests", above, {
  unit: "MB",
  item: "request",
  itemUnit: "KB",
  itemScale: 1024,
});
// The floor: what 10,000 held connections cost a bare node:http server (same V8 flags) that does nothing else.
const floor = await measure(1000, 10, true);
console.log(
  `  floor, a bare node:http server holding ${floor.queued} of ${floor.total}: RSS idle ${floor.idleMiB.toFixed(1)} MB, ` +
    `holding ${floor.heldMiB.toFixed(1)} MB, peak ${floor.peakMiB.toFixed(1)} MB ` +
    `(activator ${points.at(-1)[1].toFixed(1)} MB, ${(((points.at(-1)[1] - floor.peakMiB) * 1024) / floor.total).toFixed(1)} KB per request above it)`,
);
const last = points.at(-1);
const pass = verdict(
  "activator holding 10,000 queued / 1,000 cold revisions (peak RSS)",
  last[1],
  "<",
  120,
  "MB",
  `${(last[1] / floor.peakMiB).toFixed(2)}x the bare node:http floor's ${floor.peakMiB.toFixed(1)} MB`,
);
if (shouldProfile(pass)) {
  // Where the memory goes: the largest case again, with a heap snapshot taken while it holds them all.
  const revisions = Math.max(...(process.env.REVS ?? "10,100,1000").split(",").map(Number));
  mkdirSync(profileDir(), { recursive: true });
  const file = join(profileDir(), "activator-queued.heapsnapshot");
  const m = await measure(revisions, 10, false, file);
  printHeapSnapshot("activator holding queued requests", file, {
    top: 15,
    per: { count: m.queued || m.total, what: "held request" },
  });
}
