#!/usr/bin/env node
// The service's whole 2 s tick over N revisions, next to @thaw/autoscaler's decider-only tick bench: the real
// AutoscalerService with N revisions of one ready pod each, fed by pushed stats (as activators send them)
// between ticks, and a scaler that answers from a Map by revision key as the Kubernetes scaler does. One
// tick is the tick timer's callback plus the reconciles it starts (scale step, status), until they settle.
// The figure is this process's CPU time (user + system) per tick, median over the run. Run against dist.
// Env: THAW_BENCH_QUICK=1 for fewer ticks.
import { benchCommandLine, growth } from "@thaw/bench-kit";
import { AutoscalerService, DECIDER_TICK_MS, keyOf, policyFor, silentLogger } from "../dist/index.js";

benchCommandLine(import.meta.url, {
  name: "node bench/tick.mjs",
  summary:
    "@thaw/autoscaler-service's whole 2 s tick (every revision's decider, then its reconciles) over 100, 1,000 and 10,000 revisions fed by pushed stats: CPU per tick, median over the run, and its growth",
  env: [
    {
      name: "THAW_BENCH_QUICK",
      help: "1 = 8 ticks per size instead of 20",
    },
  ],
  more: "Runs against dist/ (build first).",
});

const TICKS = process.env.THAW_BENCH_QUICK ? 8 : 20;
const SIZES = [100, 1000, 10_000];
const T0 = 1_800_000_000_000;

/** A clock the bench moves by hand: timers are kept by id; the latest one armed for `tickMs` is the tick. */
function handClock(tickMs) {
  const timers = new Map();
  let next = 1;
  let tickId = 0;
  const clock = {
    ms: T0,
    now: () => clock.ms,
    setTimeout(fn, ms) {
      const id = next++;
      timers.set(id, fn);
      if (ms === tickMs) tickId = id;
      return id;
    },
    clearTimeout: (id) => timers.delete(id),
    sleep: async () => {},
    /** Runs the tick loop's pending timer (which arms the next one). */
    fireTick() {
      const fn = timers.get(tickId);
      if (!fn) throw new Error("no tick timer armed");
      timers.delete(tickId);
      fn();
    },
  };
  return clock;
}

/** One ready pod per revision, looked up by key on every call, as the Kubernetes scaler's informer view is. */
function fixedScaler(clock) {
  const targets = new Map();
  return {
    add(rev) {
      const pod = { name: `${rev.name}-pod`, address: "127.0.0.1:1", ready: true, startedAt: clock.now() };
      targets.set(keyOf(rev), { replicas: 1, pods: [pod] });
    },
    scale: async (rev, desired) => {
      const t = targets.get(keyOf(rev));
      if (t) t.replicas = desired;
    },
    replicas: (rev) => targets.get(keyOf(rev))?.replicas,
    pods: (rev) => targets.get(keyOf(rev))?.pods ?? [],
    subscribe: () => () => {},
    close: async () => {},
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Median CPU ms of one tick over `n` revisions, per service: `services` services of `n` revisions each, all
 * ticked in one timed step (each with its own clock and scaler), so the tick touches services x n
 * revisions' memory while each service holds only n.
 */
async function measure(n, services = 1) {
  const policy = policyFor({ containerConcurrency: 10 });
  if (!policy.ok) throw new Error(JSON.stringify(policy.issues));
  const all = [];
  for (let k = 0; k < services; k++) {
    const clock = handClock(DECIDER_TICK_MS);
    const scaler = fixedScaler(clock);
    // scrape never runs: its timer is never fired, the stats are pushed instead.
    const service = new AutoscalerService({ scaler, clock, logger: silentLogger, random: () => 0 });
    const revs = [];
    for (let i = 0; i < n; i++) {
      const rev = { namespace: `bench-${k}`, name: `rev-${i}` };
      scaler.add(rev);
      service.addRevision(rev, policy.value);
      revs.push(rev);
    }
    service.start();
    all.push({ clock, service, revs });
  }
  let x = 42;
  const rnd = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296;
  };
  /** Two seconds of pushed stats, one per revision per second (not timed). */
  const feed = () => {
    for (const { clock, service, revs } of all) {
      for (let s = 0; s < 2; s++) {
        clock.ms += 1000;
        service.record(
          revs.map((rev) => ({
            rev,
            stat: { averageConcurrentRequests: rnd() * 40, requestCount: rnd() * 100 },
          })),
        );
      }
    }
  };
  const tick = async () => {
    const c = process.cpuUsage();
    for (const { clock } of all) clock.fireTick();
    await settle();
    const d = process.cpuUsage(c);
    return (d.user + d.system) / 1000;
  };
  await settle();
  // Warm up on as many revision-ticks at every size, so the small sizes are not timed before the JIT is done.
  for (let w = 0; w < Math.max(10, 100_000 / (n * services)); w++) {
    feed();
    await tick();
  }
  const cpu = [];
  for (let t = 0; t < TICKS; t++) {
    feed();
    cpu.push(await tick());
  }
  for (const { service } of all) await service.stop();
  return median(cpu) / services;
}

console.log(`autoscaler service: one tick (decider and reconcile) over N revisions, median CPU of ${TICKS}`);
const points = [];
for (const n of SIZES) {
  const ms = await measure(n);
  console.log(`  ${String(n).padStart(6)} revisions: ${ms.toFixed(2)} ms CPU`);
  points.push([n, ms]);
}
growth("service tick CPU by revisions", points, {
  unit: "ms",
  item: "revision",
  itemUnit: "us",
  itemScale: 1000,
});
// Beside the curve, what the largest size's cost per revision is made of: the same number of revisions
// split into services of the smallest size, ticked together. Each service then holds as few revisions as
// at 1x, but a tick touches as much memory as at 100x; when this costs per revision what 100x does, the
// growth comes from the memory a tick walks (caches), not from anything a service does per revision held.
const [small, smallMs] = points[0];
const [large, largeMs] = points[points.length - 1];
const splitMs = (await measure(small, large / small)) * (large / small);
const us = (ms, n) => `${((ms / n) * 1000).toFixed(2)} us`;
console.log(
  `      ${large} revisions as ${large / small} services of ${small}, ticked together: ${us(splitMs, large)} per revision ` +
    `(one service of ${large}: ${us(largeMs, large)}; one of ${small} alone: ${us(smallMs, small)})`,
);
