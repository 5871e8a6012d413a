import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BurstResult,
  burstFigures,
  burstLosses,
  maxInFlightAtApp,
  measureColdBurst,
  NO_LOSSES,
  orderAtApp,
  overloadUpServices,
  printFigures,
  OVERLOAD_SMALL_QUEUE as SMALL_QUEUE,
  tallyBurst,
} from "@thaw/bench-kit/overload";
import { formatRss } from "@thaw/bench-kit/rss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../src/stack.js";
import { loadAndCheck } from "../src/validate.js";

// Knative's TestActivatorOverload through `thaw up` (startStack in this process: gateway, hook, activator
// and autoscaler; pods are real processes, the overload app behind a real thaw-queue-proxy): 1,000
// concurrent requests to a cold service, max-scale 3. target-burst-capacity 0 makes the autoscaler say
// "serve" as soon as it wants a pod, so nothing but the hook's rule keeps the held burst off the first pod.
const BURST = 1000;

let dir = "";
let stack: Stack;
let port = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "thaw-overload-"));
  const file = join(dir, "thaw.config.yaml");
  writeFileSync(
    file,
    ["listen: 127.0.0.1:0", "drain: { quietPeriod: 200ms }", "services:", ...overloadUpServices(dir)].join(
      "\n",
    ),
  );
  const loaded = await loadAndCheck(file);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.issues));
  stack = await startStack(loaded.config, loaded.services, { baseDir: dir });
  port = Number(new URL(stack.url).port);
}, 60_000);

afterAll(async () => {
  await stack?.close();
  rmSync(dir, { recursive: true, force: true });
}, 90_000);

/** One cold burst, with the RSS of the stack's process and of its pods sampled around it and printed. */
async function coldBurst(name: string): Promise<BurstResult[]> {
  // The pods start listening only once the gateway holds the whole burst: the burst is cold by construction.
  const {
    results,
    ms,
    heldWhenGateOpened,
    rss: figures,
  } = await measureColdBurst({
    port,
    host: `${name}.localhost`,
    count: BURST,
    gateFile: join(dir, `${name}.open`),
    held: () => stack.inflight,
    rss: () => ({
      "test process (thaw up stack + client)": [process.pid],
      // Each pod is two processes: its queue-proxy and the app.
      pods: stack.scaler.pids(),
    }),
  });
  const t = tallyBurst(results);
  console.log(
    `thaw up overload ${name}: ${BURST} sent (${heldWhenGateOpened} held when the pods could start), all answered in ${ms} ms, by status ${JSON.stringify(t.byStatus)}, ` +
      `503 with Retry-After ${t.retryable503}, pod queue full ${t.podQueueFull}\n${formatRss(figures)}`,
  );
  printFigures(`thaw-up-overload/${name}`, {
    ...burstFigures(results, figures),
    ms,
    heldWhenGateOpened,
  });
  return results;
}

/** The promises every case shares: nothing lost, nothing refused by a pod, nothing but 200 or 503 + Retry-After. */
function expectNoLossNoPodRejection(results: BurstResult[]): void {
  expect(burstLosses(results)).toEqual(NO_LOSSES);
}

describe("thaw up: 1,000 concurrent requests to a cold service (max-scale 3)", () => {
  it("containerConcurrency 1, every request fits the queue: all 200, in arrival order", async () => {
    const results = await coldBurst("cc1");
    expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(BURST);
    const order = orderAtApp(results);
    console.log(`thaw up overload cc1 order at the app: ${JSON.stringify(order)}`);
    expect(order.invertedShare).toBeLessThan(0.1);
    expect(maxInFlightAtApp(results)).toBe(1);
  }, 90_000);

  it("containerConcurrency 4, every request fits the queue: all 200", async () => {
    const results = await coldBurst("cc4");
    expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(BURST);
    expect(maxInFlightAtApp(results)).toBeLessThanOrEqual(4);
  }, 90_000);

  it(`a queue bound of ${SMALL_QUEUE}: the excess gets 503 + Retry-After, the rest 200`, async () => {
    const results = await coldBurst("bounded");
    expectNoLossNoPodRejection(results);
    const ok = results.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(SMALL_QUEUE);
    expect(tallyBurst(results).retryable503).toBe(BURST - ok);
    expect(ok).toBeLessThan(BURST);
  }, 90_000);
});
