import { Breaker, type BreakerParams, Semaphore } from "@thaw/activation";
import { diff } from "../compare.js";
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
  const { waitedMs: _watched, ...e } = v.expect;
  const actual: Record<string, unknown> = {};
  if ("acquiredWithinMs" in e) actual.acquiredWithinMs = acquiredAsync ? 0 : null;
  if ("acquisitions" in e) actual.acquisitions = acquisitions;
  if ("firstReleaseThrows" in e) actual.firstReleaseThrows = releaseThrows[0];
  if ("secondReleaseThrows" in e) actual.secondReleaseThrows = releaseThrows[1];
  if ("capacity" in e) actual.capacity = s.capacity;
  const d = diff(actual, e);
  return d ? fail(d) : pass;
}

export const adapter: Adapter = {
  async run(v: Vector): Promise<Outcome> {
    const input = v.input;
    if (input.params && v.expect.constructorThrows !== undefined) {
      const threw = thrown(() => new Breaker(input.params as BreakerParams));
      return threw === v.expect.constructorThrows ? pass : fail(`constructor threw: ${threw}`);
    }
    if (input.params && Array.isArray(input.ops))
      return runScript(input.params as BreakerParams, input.ops as Op[]);
    if (input.semaphore) return runSemaphore(v);
    if ("breaker" in input) return runHandler(v);
    return fail(`unknown vector kind: ${v.name}`);
  },
};

async function runHandler(v: Vector): Promise<Outcome> {
  return fail(`queue-proxy handler vectors are not wired yet: ${v.name}`);
}
