#!/usr/bin/env node
// Growth (issue 19, goal 5): the hook's warm decision for 10, 1,000 and 100,000 revisions. The real
// IngressHook with a host table of N services, its warm cache fed as a watch stream feeds it (one ready
// pod each, serve mode), decides requests spread uniformly over all N hosts (65,536 prepared hosts, so the
// larger tables are read at cache-unfriendly places). Two figures per N, CPU time per decision (median of
// rounds): `tryDecide` alone (the lookup: host table, warm cache, pod pick), and the forward-auth answer
// nginx's auth_request gets (forwardAuthApp's `/nginx`: Request in, Response out, no socket), whose ratio
// 100,000 / 10 revisions is the verdict (flat: < 1.5x). Runs against dist (build first).
// Env: THAW_BENCH_QUICK=1 for fewer rounds; SIZES=10,1000 to pick the sizes.
import { curve, median, profileInProcess, shouldProfile, verdict } from "@thaw/bench-kit";
import { systemClock } from "@thaw/clock";
import { forwardAuthApp, hostTableResolver, httpActivatorClient, IngressHook } from "../dist/index.js";

const ROUNDS = process.env.THAW_BENCH_QUICK ? 5 : 11;
const PER_ROUND = 200_000;
const SIZES = (process.env.SIZES ?? "10,1000,100000").split(",").map(Number);

function hookFor(n) {
  const services = Array.from({ length: n }, (_, i) => ({
    namespace: "bench",
    name: `svc-${i}`,
    hosts: [`svc-${i}.example.com`],
  }));
  const hook = new IngressHook({
    resolvers: [hostTableResolver(services)],
    // Warm decisions never call the activator: one that does fails the run.
    activator: httpActivatorClient({
      baseUrl: "http://activator.invalid",
      fetch: () => Promise.reject(new Error("a warm decision called the activator")),
      clock: systemClock,
    }),
    clock: systemClock,
    random: Math.random,
  });
  const generation = hook.cache.watchConnected();
  const now = systemClock.now();
  for (let i = 0; i < n; i++) {
    const ep = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:8012`;
    hook.cache.applyEvent(
      { namespace: "bench", name: `svc-${i}`, endpoints: [ep], mode: "serve" },
      generation,
      now,
    );
  }
  return hook;
}

/** Hosts spread uniformly over `n` revisions (a fixed LCG, so every run asks the same). */
function hostsFor(n) {
  let x = 12345;
  return Array.from({ length: 65_536 }, () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return `svc-${x % n}.example.com`;
  });
}

function measureDecide(n) {
  const hook = hookFor(n);
  const headers = new Headers();
  const reqs = hostsFor(n).map((host) => ({ method: "GET", host, path: "/", headers }));
  const now = systemClock.now();
  const rounds = [];
  let allowed = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const c = process.cpuUsage();
    for (let i = 0; i < PER_ROUND; i++) {
      if (hook.tryDecide(reqs[i & 65_535], now).kind === "allow") allowed++;
    }
    const d = process.cpuUsage(c);
    rounds.push(((d.user + d.system) * 1000) / PER_ROUND);
  }
  if (allowed !== ROUNDS * PER_ROUND) throw new Error(`${n} revisions: only ${allowed} warm allows`);
  return median(rounds);
}

async function measureForwardAuth(n) {
  const app = forwardAuthApp(hookFor(n));
  const hosts = hostsFor(n);
  const per = PER_ROUND / 10;
  const rounds = [];
  for (let r = 0; r < ROUNDS; r++) {
    const c = process.cpuUsage();
    for (let i = 0; i < per; i++) {
      const req = new Request("http://hook.internal/nginx", {
        headers: { "x-forwarded-host": hosts[i & 65_535], "x-original-uri": "/" },
      });
      const res = await app.fetch(req);
      if (res.status !== 200) throw new Error(`${n} revisions: forward-auth answered ${res.status}`);
    }
    const d = process.cpuUsage(c);
    rounds.push(((d.user + d.system) * 1000) / per);
  }
  return median(rounds);
}

console.log(`ingress hook warm decision, CPU ns per decision, median of ${ROUNDS} rounds`);
const decide = [];
const auth = [];
for (const n of SIZES) {
  decide.push([n, measureDecide(n)]);
  auth.push([n, await measureForwardAuth(n)]);
  console.log(
    `  ${String(n).padStart(7)} revisions: tryDecide ${decide.at(-1)[1].toFixed(0)} ns, ` +
      `forward-auth answer ${auth.at(-1)[1].toFixed(0)} ns`,
  );
}
curve("tryDecide ns by revisions (1x, 100x, 10,000x)", decide, "ns");
curve("forward-auth ns by revisions (1x, 100x, 10,000x)", auth, "ns");
// The lookup alone grows with the tables: at 10 revisions every entry sits in the CPU's L1 cache, at
// 100,000 each decision's host-table and warm-cache Map reads miss it (the profile printed after a MISS
// shows those two gets). Recorded beside the forward-auth answer, which is what nginx waits for.
const decidePass = verdict(
  "hook tryDecide alone, 100,000 / 10 revisions",
  decide.at(-1)[1] / decide[0][1],
  "<",
  1.5,
  "x",
  `${decide[0][1].toFixed(0)} -> ${decide.at(-1)[1].toFixed(0)} ns`,
);
if (shouldProfile(decidePass))
  await profileInProcess("hook-decide-100000", () => measureDecide(SIZES.at(-1)));
verdict(
  "hook warm forward-auth answer, 100,000 / 10 revisions",
  auth.at(-1)[1] / auth[0][1],
  "<",
  1.5,
  "x",
  `${auth[0][1].toFixed(0)} -> ${auth.at(-1)[1].toFixed(0)} ns`,
);
