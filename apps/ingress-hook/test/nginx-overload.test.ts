import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalScaler } from "@thaw/autoscaler-service";
import {
  type BurstResult,
  burstFigures,
  burstLosses,
  maxInFlightAtApp,
  measureColdBurst,
  NO_LOSSES,
  OVERLOAD_APP,
  orderAtApp,
  printFigures,
  OVERLOAD_CASES as revisions,
  OVERLOAD_SMALL_QUEUE as SMALL_QUEUE,
  tallyBurst,
} from "@thaw/bench-kit/overload";
import { formatRss, processTree } from "@thaw/bench-kit/rss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { scaleOnFirstPoke, scalerEndpoints } from "./support/local-scaler-overrides.js";
import { requireNginx } from "./support/nginx-process.js";

// Knative's TestActivatorOverload, in the shape of this repository: 1,000 concurrent requests to a cold
// revision through real nginx (infra/nginx/nginx.conf) -> the hook service -> the real @thaw/activator, to
// pods that are real processes (the overload app behind a real thaw-queue-proxy, started by the local
// scaler of `thaw up`). The scaler here goes straight to max-scale (3 pods) on the activator's cold-start
// poke: what is under test is how held requests are released, not the autoscaler's decisions.
const BURST = 1000;
const MAX_SCALE = 3;
const TOKEN = "activator-token-for-overload";

let chain: ActivatorChain;
/** Where the overload app's start gates are created (one file per revision). */
const gates = mkdtempSync(join(tmpdir(), "thaw-nginx-overload-"));
let scaler: LocalScaler;

beforeAll(async () => {
  requireNginx();
  scaler = new LocalScaler();
  for (const r of revisions) {
    scaler.register({
      namespace: "default",
      name: r.name,
      command: [process.execPath, OVERLOAD_APP],
      env: {
        STARTUP_DELAY_MS: "500",
        WORK_MS: String(r.workMs),
        START_GATE_FILE: join(gates, `${r.name}.open`),
      },
      portEnv: "PORT",
      containerConcurrency: r.containerConcurrency,
      timeoutSeconds: 60,
      drainQuietPeriodMs: 200,
    });
  }
  chain = await startActivatorChain({
    token: TOKEN,
    revisions: revisions.map((r) => ({
      namespace: "default",
      name: r.name,
      endpoints: [],
      containerConcurrency: r.containerConcurrency,
      maxQueue: r.maxQueue,
      timeoutSeconds: 60,
    })),
    services: revisions.map((r) => ({ name: r.name, namespace: "default", hosts: [`${r.name}.localhost`] })),
    hook: { activationTimeoutMs: 30_000 },
    overrides: {
      scaler: scaleOnFirstPoke(scaler, MAX_SCALE),
      endpoints: scalerEndpoints(scaler),
    },
  });
}, 60_000);

afterAll(async () => {
  await chain?.close();
  await scaler?.close();
  rmSync(gates, { recursive: true, force: true });
}, 60_000);

/** One cold burst, with the RSS of every process under test sampled around it and printed. */
async function coldBurst(name: string): Promise<BurstResult[]> {
  const nginx = chain.nginx.child.pid ? processTree(chain.nginx.child.pid) : [];
  const coldBefore = chain.hook.hook.stats.coldAllows;
  // The pods start listening only once the hook holds the whole burst: the burst is cold by construction,
  // however slowly a loaded machine sends it.
  const {
    results,
    ms,
    rss: figures,
  } = await measureColdBurst({
    port: chain.port,
    host: `${name}.localhost`,
    count: BURST,
    gateFile: join(gates, `${name}.open`),
    held: () => chain.hook.inflight,
    rss: () => ({
      nginx,
      "test process (hook + activator + client)": [process.pid],
      // Each pod is two processes: its queue-proxy and the app.
      pods: scaler.pids(),
    }),
  });
  const heldCold = chain.hook.hook.stats.coldAllows - coldBefore;
  const t = tallyBurst(results);
  const lat = results.map((r) => r.ms).sort((a, b) => a - b);
  const q = (p: number) => Math.round(lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] ?? 0);
  console.log(
    `nginx overload ${name}: ${BURST} sent, all answered in ${ms} ms (p50 ${q(0.5)} ms, p90 ${q(0.9)} ms), ` +
      `by status ${JSON.stringify(t.byStatus)}, 503 with Retry-After ${t.retryable503}, ` +
      `pod queue full ${t.podQueueFull}, held while cold ${heldCold}\n${formatRss(figures)}`,
  );
  printFigures(`nginx-overload/${name}`, { ...burstFigures(results, figures), ms, heldCold });
  // The case's premise: the whole burst reached the hook while the revision was cold (a warm request in
  // serve mode goes straight to a pod by design); the start gate above makes sure of it.
  expect(heldCold, "requests held while cold (the rest arrived after the first pod was ready)").toBe(BURST);
  return results;
}

/** The promises every case shares: nothing lost, nothing refused by a pod, nothing but 200 or 503 + Retry-After. */
function expectNoLossNoPodRejection(results: BurstResult[]): void {
  expect(burstLosses(results)).toEqual(NO_LOSSES);
}

describe("1,000 concurrent cold requests through nginx + hook + the real activator", () => {
  it("containerConcurrency 1, every request fits the queue: all 200, in arrival order", async () => {
    const results = await coldBurst("cc1");
    expectNoLossNoPodRejection(results);
    expect(results.filter((r) => r.status === 200)).toHaveLength(BURST);
    const order = orderAtApp(results);
    console.log(`nginx overload cc1 order at the app: ${JSON.stringify(order)}`);
    expect(order.invertedShare).toBeLessThan(0.1);
    // No pod ever had more than containerConcurrency requests at once.
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
