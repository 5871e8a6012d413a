import {
  Breaker,
  type BreakerParams,
  type FetchHandler,
  gatedHandler,
  RequestStats,
  Semaphore,
} from "@thaw/activation";
import { ManualClock } from "@thaw/clock/testing";
import { diff } from "../compare.js";
import { dispatch, type Kind } from "../shape.js";
import { type Adapter, fail, type Outcome, pass, type Vector } from "../types.js";

type Op = Record<string, unknown> & { op: string };

/** Lets promise chains and abort listeners settle without sleeping. */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
}

function thrown(fn: () => unknown): boolean {
  try {
    fn();
    return false;
  } catch {
    return true;
  }
}

/** Drives a Breaker through a script of asynchronous admissions (README "breaker.json"). */
async function runScript(params: BreakerParams, ops: Op[]): Promise<Outcome> {
  const b = new Breaker(params);
  const results: string[] = [];
  const executing: (() => void)[] = [];
  const controllers = new Map<string, AbortController>();
  const reservations = new Map<string, () => void>();
  for (const [i, op] of ops.entries()) {
    const at = `ops[${i}] ${op.op}`;
    switch (op.op) {
      case "maybe": {
        const ac = new AbortController();
        if (op.cancellable) controllers.set(String(op.id), ac);
        b.maybe(ac.signal, () => new Promise<void>((release) => executing.push(release))).then(
          () => results.push("success"),
          (err: Error) => results.push(`failure (${err.message})`),
        );
        await settle();
        break;
      }
      case "waitExecuting":
        await settle();
        if (executing.length < Number(op.count)) return fail(`${at}: ${executing.length} executing`);
        break;
      case "finishOne": {
        await settle();
        const release = executing.shift();
        if (!release) return fail(`${at}: nothing is executing`);
        release();
        await settle();
        const r = results.shift();
        if (r !== op.expect) return fail(`${at}: expected ${String(op.expect)}, got ${r}`);
        break;
      }
      case "expectNextResult": {
        await settle();
        const r = results.shift();
        const want = String(op.expect);
        const ok = want === "failure" ? r?.startsWith("failure") : r === want;
        if (!ok) return fail(`${at}: expected ${want}, got ${r}`);
        break;
      }
      case "cancel":
        controllers.get(String(op.id))?.abort();
        await settle();
        break;
      case "reserve": {
        const release = b.reserve();
        if (release) reservations.set(String(op.id), release);
        if (Boolean(release) !== op.expect) return fail(`${at}: expected ${String(op.expect)}`);
        break;
      }
      case "releaseReservation": {
        const release = reservations.get(String(op.id));
        if (!release) return fail(`${at}: no reservation ${String(op.id)}`);
        release();
        break;
      }
      case "updateConcurrency":
        b.updateConcurrency(Number(op.value));
        await settle();
        break;
      case "expectCapacity":
        if (b.capacity !== op.value) return fail(`${at}: expected ${String(op.value)}, got ${b.capacity}`);
        break;
      default:
        return fail(`unknown breaker op ${op.op}`);
    }
  }
  return pass;
}

/** Raw semaphore checks (README "semaphore vectors"). */
async function runSemaphore(v: Vector): Promise<Outcome> {
  const cfg = v.input.semaphore as { max: number; initial: number };
  const s = new Semaphore(cfg.max, cfg.initial);
  const ops = v.input.ops as Op[];
  let acquisitions = 0;
  const releaseThrows: boolean[] = [];
  let acquiredAsync = false;
  for (const op of ops) {
    switch (op.op) {
      case "acquireAsync":
        s.acquire().then(() => {
          acquisitions++;
          acquiredAsync = true;
        });
        await settle();
        break;
      case "acquire":
        if (!s.tryAcquire()) return fail("acquire: no token free");
        acquisitions++;
        break;
      case "tryAcquire": {
        // Non-blocking: takes a token only if one is free now (what Reserve relies on, c.3).
        const got = s.tryAcquire();
        if (got) acquisitions++;
        if (typeof op.expect === "boolean" && got !== op.expect)
          return fail(`tryAcquire: got ${got}, want ${op.expect} (capacity ${s.capacity})`);
        break;
      }
      case "release":
        releaseThrows.push(thrown(() => s.release()));
        break;
      case "updateCapacity":
        s.updateCapacity(Number(op.value));
        await settle();
        break;
      case "expectCapacity":
        if (s.capacity !== op.value) return fail(`expectCapacity: got ${s.capacity}`);
        break;
      default:
        return fail(`unknown semaphore op ${op.op}`);
    }
  }
  // `waitedMs` is how long the Go test watched, not an outcome: our wait is "until everything settled".
  const { waitedMs: _watched, opsAsserted: _asserted, ...e } = v.expect;
  const actual: Record<string, unknown> = {};
  if ("acquiredWithinMs" in e) actual.acquiredWithinMs = acquiredAsync ? 0 : null;
  if ("acquisitions" in e) actual.acquisitions = acquisitions;
  if ("firstReleaseThrows" in e) actual.firstReleaseThrows = releaseThrows[0];
  if ("secondReleaseThrows" in e) actual.secondReleaseThrows = releaseThrows[1];
  if ("capacity" in e) actual.capacity = s.capacity;
  const d = diff(actual, e);
  return d ? fail(d) : pass;
}

/** Every kind breaker.json holds, by the shape of its input and expect. */
export const kinds: readonly Kind[] = [
  {
    name: "breaker constructor",
    input: ["params"],
    expect: ["constructorThrows"],
    run: (v) => {
      const threw = thrown(() => new Breaker(v.input.params as BreakerParams));
      return threw === v.expect.constructorThrows ? pass : fail(`constructor threw: ${threw}`);
    },
  },
  {
    name: "breaker script",
    input: ["params", "ops"],
    expect: ["opsAsserted"],
    run: (v) => runScript(v.input.params as BreakerParams, v.input.ops as Op[]),
  },
  {
    name: "semaphore",
    input: ["semaphore", "ops"],
    expect: [],
    optionalExpect: [
      "acquiredWithinMs",
      "waitedMs",
      "acquisitions",
      "firstReleaseThrows",
      "secondReleaseThrows",
      "capacity",
      "opsAsserted",
    ],
    run: runSemaphore,
  },
  {
    name: "queue-proxy breaker handler",
    input: ["breaker"],
    optionalInput: ["requests", "request"],
    expect: [],
    optionalExpect: [
      "firstCompleted",
      "afterRelease",
      "second",
      "upstreamSees",
      "statsReport",
      "allReachUpstreamConcurrently",
      "lastStatus",
    ],
    run: runHandler,
  },
];

/** Drives @thaw/activation's Breaker, Semaphore and gated handler with breaker.json. */
export const adapter: Adapter = { run: (v) => dispatch(kinds, v) };

/** Queue-proxy handler vectors, run through `gatedHandler` in front of a controllable upstream. */
async function runHandler(v: Vector): Promise<Outcome> {
  const { input, expect } = v;
  const gate = input.breaker ? new Breaker(input.breaker as BreakerParams) : undefined;
  const clock = new ManualClock(1000);
  const stats = new RequestStats(clock.now());
  let releaseUpstream: () => void = () => {};
  const upstreamGate = new Promise<void>((r) => {
    releaseUpstream = r;
  });
  const seen: Request[] = [];
  let arrived = 0;
  let maxConcurrent = 0;
  let current = 0;
  const mode = (input.requests as Rec[] | undefined)?.[0];
  const next: FetchHandler = async (req) => {
    seen.push(req);
    arrived++;
    current++;
    maxConcurrent = Math.max(maxConcurrent, current);
    if (mode?.upstreamBlocksUntil === "3 requests arrived" && arrived >= 3) releaseUpstream();
    if (mode?.upstreamBlocksUntilReleased || mode?.upstreamBlocksUntil || expect.second) await upstreamGate;
    current--;
    return new Response("ok", { status: 200 });
  };
  const handler = gatedHandler({ next, gate, stats, clock });
  const done: { status: number; body: string }[] = [];
  const send = (req: Request) =>
    handler(req).then(async (res) => {
      const r = { status: res.status, body: await res.text() };
      done.push(r);
      return r;
    });
  if (expect.firstCompleted) {
    const n = Number(mode?.concurrent);
    const all = Array.from({ length: n }, () =>
      send(new Request(String(mode?.url), { method: String(mode?.method) })),
    );
    await settle();
    const first = done[0];
    if (!first) return fail("no request completed while the upstream was blocked");
    const fc = expect.firstCompleted as { status: number; bodyContains: string };
    if (first.status !== fc.status || !first.body.includes(fc.bodyContains)) {
      return fail(`first completed ${JSON.stringify(first)}`);
    }
    releaseUpstream();
    await Promise.all(all);
    const d = diff(
      done.slice(1).map((r) => ({ status: r.status })),
      expect.afterRelease,
    );
    return d ? fail(d) : pass;
  }
  if (expect.second) {
    const first = send(new Request("http://localhost:8081/time"));
    await settle();
    const ms = Number((input.requests as Rec[])[1]?.contextDeadlineMs);
    const second = await send(new Request("http://localhost:8081/time", { signal: AbortSignal.timeout(ms) }));
    releaseUpstream();
    await first;
    const want = expect.second as { status: number; bodyContains: string };
    if (second.status !== want.status || !second.body.includes(want.bodyContains)) {
      return fail(`second answered ${JSON.stringify(second)}`);
    }
    return pass;
  }
  if (expect.upstreamSees) {
    const r = input.request as { method: string; url: string; host: string; headers: Record<string, string> };
    const req = new Request(r.url, { method: r.method, headers: { ...r.headers, host: r.host } });
    const res = await send(req);
    if (res.status !== 200) return fail(`status ${res.status}`);
    const up = seen[0];
    if (!up) return fail("upstream was not called");
    const want = expect.upstreamSees as { host: string; headersAbsent: string[] };
    const present = want.headersAbsent.filter((h) => up.headers.has(h));
    const report = stats.report(clock.now());
    const d = diff(
      {
        upstreamSees: {
          host: up.headers.get("host"),
          headersAbsent: present.length ? present : want.headersAbsent,
        },
        statsReport: { proxiedRequestCount: report.proxiedRequestCount },
      },
      expect,
    );
    return d ? fail(present.length ? `upstream still sees ${present.join(", ")}` : d) : pass;
  }
  if ("allReachUpstreamConcurrently" in expect) {
    const n = Number(mode?.concurrent);
    const headers = (mode?.headers ?? {}) as Record<string, string>;
    const all = Array.from({ length: n }, () =>
      send(new Request(String(mode?.url), { method: String(mode?.method), headers })),
    );
    await settle();
    if (arrived < n) {
      releaseUpstream();
      await Promise.all(all);
      return fail(`only ${arrived} of ${n} probes reached the upstream`);
    }
    const results = await Promise.all(all);
    const d = diff(
      { allReachUpstreamConcurrently: maxConcurrent, lastStatus: results[results.length - 1]?.status },
      expect,
    );
    return d ? fail(d) : pass;
  }
  return fail(`unknown handler vector: ${v.name}`);
}

type Rec = Record<string, unknown>;
