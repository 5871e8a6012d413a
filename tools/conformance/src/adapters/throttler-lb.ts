import {
  activatorsForRevision,
  assignSlice,
  calculateCapacity,
  type FetchLike,
  firstAvailablePolicy,
  inferActivatorIndex,
  type LbPolicy,
  type MeshMode,
  PodTracker,
  pickIndices,
  probeDestination,
  probeRound,
  RevisionThrottler,
  randomChoice2Policy,
  roundRobinPolicy,
  withPort,
} from "@thaw/activation";
import { ManualClock } from "@thaw/clock/testing";
import { diff } from "../compare.js";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";

type Rec = Record<string, unknown>;

/** A small seeded generator, so a failing random-policy vector fails the same way every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function check(actual: unknown, expected: unknown): Outcome {
  const d = diff(actual, expected);
  return d ? fail(d) : pass;
}

function updateCapacity(i: Rec, e: Rec): Outcome {
  const rb = i.revisionBreaker;
  const queueLimit = typeof rb === "object" && rb !== null ? Number((rb as Rec).queueDepth) : undefined;
  const rt = new RevisionThrottler({ containerConcurrency: Number(i.containerConcurrency), queueLimit });
  rt.updateActivators(Number(i.numActivators), Number(i.activatorIndex));
  const pt = i.podTrackers as Rec | unknown[];
  const dests = Array.isArray(pt) ? [] : ((pt.dests as string[]) ?? []);
  if (!Array.isArray(pt) && pt.perPodBreakerCC !== null && pt.perPodBreakerCC !== i.containerConcurrency) {
    return fail("per-pod CC differs from the revision's CC: trackers here always take the revision's CC");
  }
  rt.updateDestinations(dests, Number(i.backendCount));
  const actual: Rec = { revisionBreakerCapacity: rt.capacity };
  if ("assignedTrackers" in e) actual.assignedTrackers = rt.assignedTrackers.length;
  return check(actual, e);
}

function podAssignment(i: Rec, e: Rec): Outcome {
  const rt = new RevisionThrottler({ containerConcurrency: Number(i.containerConcurrency) });
  rt.updateActivators(Number(i.numActivators), Number(i.activatorIndex));
  const updates = i.updates as { dests: string[] }[];
  const want = e.afterUpdate as Rec[];
  for (const [n, u] of updates.entries()) {
    rt.updateDestinations(u.dests);
    const w = want[n] as Rec;
    const got: Rec = { podTrackers: rt.podTrackers.length, revisionCapacity: rt.capacity };
    if ("assignedDests" in w) got.assignedDests = rt.assignedTrackers.map((t) => t.dest);
    if ("assignedTrackers" in w) got.assignedTrackers = rt.assignedTrackers.length;
    if ("perAssignedTrackerCapacity" in w) {
      const caps = new Set(rt.assignedTrackers.map((t) => t.reportedCapacity));
      got.perAssignedTrackerCapacity = caps.size === 1 ? [...caps][0] : [...caps];
    }
    if ("trackerCapacity" in w) {
      const caps = new Set(rt.podTrackers.map((t) => t.reportedCapacity));
      got.trackerCapacity = caps.size === 1 ? [...caps][0] : [...caps];
    }
    const d = diff(got, w, `afterUpdate[${n}]`);
    if (d) return fail(d);
  }
  return pass;
}

function lbPolicy(i: Rec, e: Rec): Outcome {
  const trackers = (i.trackers as { dest: string; cc?: number }[]).map(
    (t) => new PodTracker(t.dest, t.cc ?? 0),
  );
  const name = String(i.policy);
  const policy: LbPolicy | undefined =
    name === "firstAvailable"
      ? firstAvailablePolicy()
      : name === "roundRobin"
        ? roundRobinPolicy()
        : name === "randomChoice2"
          ? randomChoice2Policy(seeded(42))
          : undefined;
  if (!policy) return fail(`unknown policy ${name}`);
  if (typeof i.picks === "number") {
    const picked = Array.from({ length: i.picks }, () => policy(trackers)?.dest ?? null);
    return check({ picked }, e);
  }
  if (typeof i.sequentialPicksWithImmediateRelease === "number") {
    const counts = new Map<string, number>();
    for (let n = 0; n < i.sequentialPicksWithImmediateRelease; n++) {
      const t = policy(trackers);
      if (!t) return fail(`pick ${n} found no tracker`);
      counts.set(t.dest, (counts.get(t.dest) ?? 0) + 1);
      t.release();
    }
    const total = [...counts.values()].reduce((a, b) => a + b, 0);
    return check(
      { eachTrackerPickedAtLeastOnce: trackers.every((t) => (counts.get(t.dest) ?? 0) > 0), total },
      e,
    );
  }
  const kept: PodTracker[] = [];
  let held: PodTracker | undefined;
  let last: PodTracker | undefined;
  let previous: PodTracker | undefined;
  for (const [n, step] of (i.steps as Rec[]).entries()) {
    const at = `steps[${n}]`;
    if (step.op === "releaseLastKept") {
      kept.pop()?.release();
      continue;
    }
    if (step.releaseLast) {
      if (!last) return fail(`${at}: nothing to release`);
      last.release();
      if ("expectWeight" in step && last.inFlight !== step.expectWeight) {
        return fail(`${at}: weight ${last.inFlight}, expected ${String(step.expectWeight)}`);
      }
      continue;
    }
    const targets = step.targets === "first1" ? trackers.slice(0, 1) : trackers;
    const t = policy(targets);
    if ("expect" in step && (t?.dest ?? null) !== step.expect) {
      return fail(`${at}: picked ${t?.dest ?? null}, expected ${String(step.expect)}`);
    }
    if ("expectDest" in step && t?.dest !== step.expectDest) return fail(`${at}: picked ${t?.dest}`);
    if ("expectWeight" in step && t?.inFlight !== step.expectWeight) {
      return fail(`${at}: weight ${t?.inFlight}, expected ${String(step.expectWeight)}`);
    }
    if (step.expectDifferentFromHeld && t === held) return fail(`${at}: picked the held tracker`);
    if (step.expectSameAsPrevious && t !== previous)
      return fail(`${at}: picked ${t?.dest}, not ${previous?.dest}`);
    if (!t) continue;
    if (step.hold) held = t;
    if (step.keep) kept.push(t);
    else if (step.pick === undefined) t.release();
    previous = t;
    last = t;
  }
  return pass;
}

async function probePods(i: Rec, e: Rec): Promise<Outcome> {
  const clock = new ManualClock(0);
  // README: hosts not in responsesByHost get defaultResponse, itself 200 `queue` when absent; d.3's 300 ms.
  const byHost = (i.responsesByHost ?? {}) as Record<string, Rec>;
  const fallback = (i.defaultResponse ?? { code: 200, body: "queue" }) as Rec;
  const timeoutMs = Number(i.probeTimeoutMs ?? 300);
  let calls = 0;
  let badRequest: string | undefined;
  const fetch: FetchLike = async (url, init) => {
    calls++;
    const u = new URL(url);
    const h = new Headers(init.headers);
    if (
      u.pathname !== "/healthz" ||
      h.get("k-network-probe") !== "queue" ||
      h.get("user-agent") !== "Knative-Activator-Probe"
    ) {
      badRequest = `unexpected probe request ${url} ${JSON.stringify([...h])}`;
    }
    const r = byHost[u.hostname] ?? fallback;
    if (typeof r.delayMs === "number") await clock.sleep(r.delayMs, init.signal ?? undefined);
    if (r.transportError) throw new TypeError(String(r.transportError));
    return new Response(typeof r.body === "string" ? r.body : "", { status: Number(r.code) });
  };
  const mode = String(i.meshMode);
  const meshMode: MeshMode = mode === "auto" ? "auto" : mode === "disabled" ? "disabled" : "enabled";
  const current = i.current as { ready: string[]; notReady: string[] };
  const round = probeRound(
    {
      ready: current.ready,
      notReady: current.notReady,
      healthy: new Set((i.previouslyHealthy ?? []) as string[]),
      meshMode,
      probeOptimisation: Boolean(i.enableProbeOptimization),
      timeoutMs,
    },
    (dest, signal) => probeDestination(fetch, dest, signal),
    clock,
  );
  await clock.advance(timeoutMs + 100);
  const r = await round;
  if (badRequest) return fail(badRequest);
  if (r.probes !== calls) return fail(`round counted ${r.probes} probes, fetch saw ${calls}`);
  return check(
    {
      healthy: [...r.healthy].sort(),
      noop: r.noop,
      notMesh: r.notMesh,
      success: r.error === undefined,
      numProbes: calls,
    },
    e,
  );
}

const n = (v: Vector, k: string) => Number(v.input[k]);

/** Every kind throttler-lb.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  {
    name: "update capacity",
    input: ["backendCount", "containerConcurrency", "numActivators", "podTrackers", "revisionBreaker"],
    optionalInput: ["activatorIndex"],
    expect: ["revisionBreakerCapacity"],
    optionalExpect: ["assignedTrackers"],
    run: (v) => updateCapacity(v.input, v.expect),
  },
  {
    name: "calculate capacity",
    input: ["activatorCount", "backendCount", "containerConcurrency", "numTrackers"],
    expect: ["capacity"],
    run: (v) =>
      check(
        {
          capacity: calculateCapacity(
            n(v, "containerConcurrency"),
            n(v, "backendCount"),
            n(v, "numTrackers"),
            n(v, "activatorCount"),
          ),
        },
        v.expect,
      ),
  },
  {
    name: "infer activator index",
    input: ["self", "sortedActivatorIPs"],
    expect: ["index"],
    run: (v) =>
      check(
        { index: inferActivatorIndex(v.input.sortedActivatorIPs as string[], String(v.input.self)) },
        v.expect,
      ),
  },
  {
    name: "pick indices",
    input: ["numActivators", "numTrackers", "selfIndex"],
    expect: ["beginIndex", "endIndex", "remnants"],
    run: (v) => check(pickIndices(n(v, "numTrackers"), n(v, "selfIndex"), n(v, "numActivators")), v.expect),
  },
  {
    name: "assign slice",
    input: ["numActivators", "selfIndex", "sortedDests"],
    expect: ["assigned"],
    run: (v) =>
      check(
        { assigned: assignSlice(v.input.sortedDests as string[], n(v, "selfIndex"), n(v, "numActivators")) },
        v.expect,
      ),
  },
  {
    name: "pod assignment",
    input: ["containerConcurrency", "numActivators", "updates"],
    optionalInput: ["activatorIndex"],
    expect: ["afterUpdate"],
    run: (v) => podAssignment(v.input, v.expect),
  },
  {
    name: "LB policy",
    input: ["policy", "trackers"],
    optionalInput: ["picks", "steps", "sequentialPicksWithImmediateRelease"],
    expect: [],
    optionalExpect: ["picked", "stepsAsserted", "eachTrackerPickedAtLeastOnce", "total"],
    run: (v) => lbPolicy(v.input, v.expect),
  },
  {
    name: "activator probe pods",
    input: ["current", "meshMode"],
    optionalInput: [
      "previouslyHealthy",
      "defaultResponse",
      "enableProbeOptimization",
      "probeTimeoutMs",
      "responsesByHost",
    ],
    expect: [],
    optionalExpect: ["healthy", "noop", "notMesh", "numProbes", "success"],
    run: (v) => probePods(v.input, v.expect),
  },
  {
    name: "secure port rewrite",
    input: ["port", "target"],
    expect: ["result"],
    run: (v) => check({ result: withPort(String(v.input.target), n(v, "port")) }, v.expect),
  },
  {
    name: "activators per revision",
    input: ["activatorCapacity", "readyPods", "targetBurstCapacity", "totalValue"],
    expect: ["numActivators"],
    run: (v) =>
      check(
        {
          numActivators: activatorsForRevision(
            n(v, "readyPods"),
            n(v, "totalValue"),
            n(v, "targetBurstCapacity"),
            n(v, "activatorCapacity"),
          ),
        },
        v.expect,
      ),
  },
];

/** Drives @thaw/activation's throttler, LB policies and backend probing with throttler-lb.json. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };
