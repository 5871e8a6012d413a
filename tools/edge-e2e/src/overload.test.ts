import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BurstResult,
  burstFigures,
  burstLosses,
  maxInFlightAtApp,
  measureColdBurst,
  NEVER_ARRIVED,
  NO_LOSSES,
  overloadUpServices,
  printFigures,
  OVERLOAD_SMALL_QUEUE as SMALL_QUEUE,
  OVERLOAD_CASES as services,
  tallyBurst,
} from "@thaw/bench-kit/overload";
import { formatRss, processTree } from "@thaw/bench-kit/rss";
import { loadAndCheck, type Stack, startStack } from "thaw";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counters } from "./http.js";
import { startWranglerDev, type WranglerDev } from "./wrangler-dev.js";

// Knative's TestActivatorOverload through the edge path: the gateway Worker (hook middleware) and the
// activator Worker (one RevisionActivator Durable Object per revision) in one `wrangler dev` (local workerd),
// in front of a Thaw origin (docs/edge.md section 1: `thaw up`, here its stack in this process). The pods are
// real processes: the overload app behind a real thaw-queue-proxy, max-scale 3, started by thaw up's local
// scaler once the Durable Object's POST /v1/activate wakes the service. Origin a, not the webhook origin b:
// thaw-autoscaler's webhook receiver runs one pod at a fixed address (run.servingPort), so max-scale 3 needs
// an origin with one address in front of several pods, which thaw up's gateway is.
const BURST = Number(process.env.THAW_EDGE_BURST ?? 1000);
const ORIGIN_TOKEN = "origin-token-overload-0123456789";
const EDGE_TOKEN = "edge-token-overload-0123456789";
/**
 * How long the burst is given to reach the edge before the pods may listen (the edge's held count is not
 * visible). THAW_EDGE_GATE_WAIT_MS=0 opens the gate at once, so most of the burst reaches the gateway
 * after the wake, as on a loaded machine: those requests must take pod slots like the held ones.
 */
const GATE_WAIT_MS = Number(process.env.THAW_EDGE_GATE_WAIT_MS ?? 8000);

let dir = "";
let stack: Stack;
let edge: WranglerDev;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "thaw-edge-overload-"));
  const file = join(dir, "thaw.config.yaml");
  writeFileSync(
    file,
    [
      "listen: 127.0.0.1:0",
      `token: ${ORIGIN_TOKEN}`,
      "drain: { quietPeriod: 200ms }",
      "services:",
      ...overloadUpServices(dir),
    ].join("\n"),
  );
  const loaded = await loadAndCheck(file);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  stack = await startStack(loaded.config, loaded.services, { baseDir: dir });
  // One wrangler dev for every case (it takes seconds to boot).
  edge = await startWranglerDev({
    gatewayVars: {
      ORIGIN_URL: stack.url,
      ORIGIN_TOKEN,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
      WARM_TTL_MS: "30000",
      ACTIVATION_TIMEOUT_MS: "60000",
      THAW_SERVICES: JSON.stringify(
        services.map((s) => ({
          name: s.name,
          namespace: "default",
          hosts: [`${s.name}.localhost`],
          containerConcurrency: s.containerConcurrency,
          maxQueue: s.maxQueue,
        })),
      ),
    },
    activatorVars: {
      THAW_ORIGIN_URL: stack.url,
      THAW_ORIGIN_TOKEN: ORIGIN_TOKEN,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
      REVISIONS: JSON.stringify(services.map((s) => ({ namespace: "default", name: s.name }))),
    },
  });
}, 90_000);

afterAll(async () => {
  await edge?.stop();
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
}, 90_000);

/** The workerd processes under `wrangler dev` (the Workers' runtime, whose RSS the figures report). */
function workerdPids(): number[] {
  const root = edge.proc.child.pid;
  if (!root) return [];
  return processTree(root).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "latin1").includes("workerd");
    } catch {
      return false;
    }
  });
}

/** One cold burst at the edge, with workerd's, this process's and the pods' RSS sampled and printed. */
async function coldBurst(name: string): Promise<BurstResult[]> {
  const workerd = workerdPids();
  expect(workerd.length, "workerd runs under wrangler dev").toBeGreaterThan(0);
  const before = await counters(edge.url, EDGE_TOKEN);
  // The gateway's held count is inside workerd; the gate opens after a fixed wait instead. Requests that
  // reach the gateway after the wake (a loaded machine) pass the same pod slots; heldCold says how many were held.
  const {
    results,
    ms,
    rss: figures,
  } = await measureColdBurst({
    port: Number(new URL(edge.url).port),
    host: `${name}.localhost`,
    count: BURST,
    // Each request's own bound: generous, since at load 14 a whole case took 91 s through wrangler dev and
    // 12 requests still in progress were cut at a 90 s bound and counted lost.
    timeoutMs: 180_000,
    gateFile: join(dir, `${name}.open`),
    held: () => 0,
    heldCount: 1,
    maxWaitMs: GATE_WAIT_MS,
    // wrangler dev's local workerd may leave a fresh connection unread until its client closes (seen with
    // a bare Worker too: 36 of 1,000 in one burst of fast 503s). Requests still pending after 30 s with no
    // answer, when the gateway was handed exactly the answered ones, never reached Thaw: counted apart.
    neverArrived: async (pending) =>
      (await counters(edge.url, EDGE_TOKEN)).received - before.received === BURST - pending,
    rss: () => ({
      workerd,
      "test process (thaw up stack + client)": [process.pid],
      pods: stack.scaler.pids(),
    }),
  });
  const after = await counters(edge.url, EDGE_TOKEN);
  // A lost request's trail: its lines in the Workers' log (if any), the log's lines that are not a plain
  // 200 or 503, and the gateway's counters.
  if (burstLosses(results).errors > 0) console.log(lossTrail(results, edge.proc.out(), after));
  const heldCold = after.hook.coldAllows - before.hook.coldAllows;
  console.log(`edge overload ${name}: ${BURST} sent, all answered in ${ms} ms\n${formatRss(figures)}`);
  printFigures(`edge-overload/${name}`, {
    ...burstFigures(results, figures),
    ms,
    heldCold,
    activations: after.hook.activations - before.hook.activations,
  });
  return results;
}

/** What a failed case prints to find where its lost requests went. */
function lossTrail(results: BurstResult[], log: string, after: unknown): string {
  const lost = results.filter((r) => r.error !== undefined && r.error !== NEVER_ARRIVED).map((r) => r.i);
  const lines = log.split("\n");
  const ofLost = lines.filter((l) => lost.some((i) => l.includes(`/burst/${i} `)));
  const unusual = lines.filter((l) => l.trim() !== "" && !/ (200 OK|503 Service Unavailable) \(/.test(l));
  return [
    `lost: ${lost.join(", ")}`,
    `their lines in the wrangler dev log (${ofLost.length}):`,
    ...ofLost.slice(0, 50),
    `other lines of the log (${unusual.length}, last 80):`,
    ...unusual.slice(-80),
    `gateway counters after: ${JSON.stringify(after)}`,
  ].join("\n");
}

/**
 * Nothing lost, nothing refused by a pod, nothing but 200 or 503 + Retry-After; a few requests wrangler dev
 * never handed to the gateway at most (see neverArrived above). Returns how many reached the gateway.
 */
function expectNoLossNoPodRejection(results: BurstResult[]): number {
  expect(burstLosses(results)).toEqual(NO_LOSSES);
  const { neverArrived } = tallyBurst(results);
  expect(neverArrived, "requests wrangler dev never handed to the gateway").toBeLessThan(BURST / 10);
  return BURST - neverArrived;
}

describe(`the edge (wrangler dev: gateway + activator Durable Object) in front of thaw up: ${BURST} concurrent cold requests, max-scale 3`, () => {
  it("containerConcurrency 1: all 200, no pod over its capacity", async () => {
    const results = await coldBurst("cc1");
    const arrived = expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(arrived);
    expect(maxInFlightAtApp(results)).toBe(1);
  }, 240_000);

  it("containerConcurrency 4: all 200, no pod over its capacity", async () => {
    const results = await coldBurst("cc4");
    const arrived = expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(arrived);
    expect(maxInFlightAtApp(results)).toBeLessThanOrEqual(4);
  }, 240_000);

  it(`a queue bound of ${SMALL_QUEUE} (THAW_SERVICES maxQueue): the excess gets 503 + Retry-After, the rest 200`, async () => {
    const results = await coldBurst("bounded");
    const arrived = expectNoLossNoPodRejection(results);
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(SMALL_QUEUE);
    expect(ok).toBeLessThan(arrived);
    expect(tallyBurst(results).retryable503).toBe(arrived - ok);
  }, 240_000);
});
