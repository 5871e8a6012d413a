import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BurstResult,
  burstFigures,
  burstLosses,
  fireBurst,
  OVERLOAD_APP,
  openGateWhenHeld,
  orderAtApp,
  printFigures,
  tallyBurst,
} from "@thaw/bench-kit/overload";
import { formatRss, sampleRss } from "@thaw/bench-kit/rss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Stack, startStack } from "../src/stack.js";
import { loadAndCheck } from "../src/validate.js";

// Knative's TestActivatorOverload through `thaw up` (startStack in this process: gateway, hook, activator
// and autoscaler; pods are real processes, the overload app behind a real thaw-queue-proxy): 1,000
// concurrent requests to a cold service, max-scale 3. target-burst-capacity 0 makes the autoscaler say
// "serve" as soon as it wants a pod, so nothing but the hook's rule keeps the held burst off the first pod.
const BURST = 1000;
const SMALL_QUEUE = 100;

const services = [
  { name: "cc1", containerConcurrency: 1, maxQueue: 10_000 },
  { name: "cc4", containerConcurrency: 4, maxQueue: 10_000 },
  { name: "bounded", containerConcurrency: 4, maxQueue: SMALL_QUEUE },
];

let dir = "";
let stack: Stack;
let port = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "thaw-overload-"));
  const file = join(dir, "thaw.config.yaml");
  writeFileSync(
    file,
    [
      "listen: 127.0.0.1:0",
      "drain: { quietPeriod: 200ms }",
      "services:",
      ...services.flatMap((s) => [
        `  - name: ${s.name}`,
        `    hosts: [${s.name}.localhost]`,
        `    containerConcurrency: ${s.containerConcurrency}`,
        `    maxQueue: ${s.maxQueue}`,
        "    timeoutSeconds: 60",
        "    autoscaling: { max-scale: 3, target-burst-capacity: 0 }",
        "    run:",
        `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(OVERLOAD_APP)}]`,
        `      env: { STARTUP_DELAY_MS: "500", WORK_MS: "20", START_GATE_FILE: ${JSON.stringify(join(dir, `${s.name}.open`))} }`,
      ]),
    ].join("\n"),
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
  const rss = sampleRss(() => ({
    "test process (thaw up stack + client)": [process.pid],
    // Each pod is two processes: its queue-proxy and the app.
    pods: stack.scaler.pids(),
  }));
  const t0 = performance.now();
  const burst = fireBurst({ port, host: `${name}.localhost`, count: BURST });
  // The pods start listening only once the gateway holds the whole burst: the burst is cold by construction.
  const gate = await openGateWhenHeld({
    file: join(dir, `${name}.open`),
    held: () => stack.inflight,
    count: BURST,
  });
  const results = await burst;
  const ms = Math.round(performance.now() - t0);
  await new Promise((r) => setTimeout(r, 300));
  const t = tallyBurst(results);
  const figures = rss.stop();
  console.log(
    `thaw up overload ${name}: ${BURST} sent (${gate.held} held when the pods could start), all answered in ${ms} ms, by status ${JSON.stringify(t.byStatus)}, ` +
      `503 with Retry-After ${t.retryable503}, pod queue full ${t.podQueueFull}\n${formatRss(figures)}`,
  );
  printFigures(`thaw-up-overload/${name}`, {
    ...burstFigures(results, figures),
    ms,
    heldWhenGateOpened: gate.held,
  });
  return results;
}

/** The promises every case shares: nothing lost, nothing refused by a pod, nothing but 200 or 503 + Retry-After. */
function expectNoLossNoPodRejection(results: BurstResult[]): void {
  expect(burstLosses(results)).toEqual({ errors: 0, podQueueFull: 0, bare503: 0, otherStatuses: [] });
}

const maxInFlight = (results: BurstResult[]) =>
  Math.max(...results.filter((r) => r.status === 200).map((r) => JSON.parse(r.body).maxInFlight as number));

describe("thaw up: 1,000 concurrent requests to a cold service (max-scale 3)", () => {
  it("containerConcurrency 1, every request fits the queue: all 200, in arrival order", async () => {
    const results = await coldBurst("cc1");
    expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(BURST);
    const order = orderAtApp(results);
    console.log(`thaw up overload cc1 order at the app: ${JSON.stringify(order)}`);
    expect(order.invertedShare).toBeLessThan(0.1);
    expect(maxInFlight(results)).toBe(1);
  }, 90_000);

  it("containerConcurrency 4, every request fits the queue: all 200", async () => {
    const results = await coldBurst("cc4");
    expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(BURST);
    expect(maxInFlight(results)).toBeLessThanOrEqual(4);
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
