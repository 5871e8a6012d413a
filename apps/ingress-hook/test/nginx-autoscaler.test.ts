import { fileURLToPath } from "node:url";
import {
  type AutoscalerServer,
  AutoscalerService,
  LocalScaler,
  policyFor,
  startAutoscalerServer,
} from "@thaw/autoscaler-service";
import { coldBurst, figuresLine, scaleReached, withinOneTick } from "@thaw/bench-kit/cold-burst";
import { systemClock } from "@thaw/clock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { httpGet } from "./support/http-get.js";
import { scalerEndpoints } from "./support/local-scaler-overrides.js";
import { requireNginx } from "./support/nginx-process.js";

// The cluster path with the real autoscaler (issue 28): nginx (infra/nginx) -> the hook (forward-auth) -> the
// real @thaw/activator, to pods of a slow app (thaw up's local scaler: the app behind a real thaw-queue-proxy)
// that the real autoscaler scales: its stat server takes the activator's websocket, its decider ticks every
// 2 s. As in a cluster, the activator has no scaler of its own: its cold-start poke and the hook's held
// requests (which the hook posts to the activator's /v1/stats) reach the autoscaler only as stats, and a wake
// hint only through the autoscaler's /v1/activate. Knative's arithmetic for 10 held at containerConcurrency 2
// and 70 % utilisation: ceil(10 / 1.4) = 8 pods.
const START_MS = 3000;
const WORK_MS = 1500;
const N = 10;
const CC = 2;
const KNATIVE = Math.ceil(N / (CC * 0.7));
/**
 * Counted twice would ask for ceil(2N / 1.4) = 15. Counted once, the second in which the hook hands the burst
 * to the activator can read up to 2N, one of at least four seconds in the panic window by then: 9 at most
 * (docs/demand.md, Limits).
 */
const AT_MOST = Math.ceil((1.25 * N) / (CC * 0.7));
const TOKEN = "token-for-held-demand";
const rev = { namespace: "default", name: "hello" };
/** A revision of its own, woken once before the burst: see beforeAll. */
const warm = { namespace: "default", name: "warm-up" };
const helloApp = fileURLToPath(new URL("../../../examples/hello/server.mjs", import.meta.url));

let scaler: LocalScaler;
let service: AutoscalerService;
let autoscaler: AutoscalerServer;
let chain: ActivatorChain;

beforeAll(async () => {
  requireNginx();
  scaler = new LocalScaler();
  scaler.register({
    ...rev,
    command: [process.execPath, helloApp],
    env: { STARTUP_DELAY_MS: String(START_MS), WORK_MS: String(WORK_MS) },
    portEnv: "PORT",
    containerConcurrency: CC,
    timeoutSeconds: 60,
    drainQuietPeriodMs: 200,
  });
  scaler.register({
    ...warm,
    command: [process.execPath, helloApp],
    env: { STARTUP_DELAY_MS: "0" },
    portEnv: "PORT",
    containerConcurrency: CC,
    timeoutSeconds: 60,
    drainQuietPeriodMs: 200,
  });
  service = new AutoscalerService({ scaler, clock: systemClock });
  const policy = policyFor({ containerConcurrency: CC });
  if (!policy.ok) throw new Error(JSON.stringify(policy.issues));
  service.addRevision(rev, policy.value);
  service.addRevision(warm, policy.value);
  service.start();
  autoscaler = await startAutoscalerServer({ service, clock: systemClock, token: TOKEN });
  chain = await startActivatorChain({
    token: TOKEN,
    activatorArgs: ["--autoscaler", `ws://127.0.0.1:${autoscaler.port}`],
    revisions: [rev, warm].map((r) => ({
      ...r,
      endpoints: [],
      containerConcurrency: CC,
      timeoutSeconds: 60,
    })),
    services: [
      { ...rev, hosts: ["hello.localhost"], containerConcurrency: CC },
      { ...warm, hosts: ["warm-up.localhost"], containerConcurrency: CC },
    ],
    hook: {
      activationTimeoutMs: 30_000,
      warm: [{ path: "/login", hosts: [], services: [rev], ttlSeconds: 120 }],
    },
    overrides: { endpoints: scalerEndpoints(scaler) },
  });
  // One cold start on another revision first, as `thaw up` does at start: the hook, the activator and the
  // autoscaler share this process with the test's client, and the first cold request through them pays for
  // loading and compiling their code. Without it the burst's requests reach the hook over a second or more,
  // and the scale follows that ramp instead of the burst (docs/demand.md).
  expect((await httpGet(chain.port, "warm-up.localhost", "/")).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await chain?.close();
  await service?.stop();
  await autoscaler?.close();
  await scaler?.close();
}, 60_000);

describe("nginx + hook + activator: requests held at zero count as load once (issue 28.1)", () => {
  it("a burst of 10 at zero asks for Knative's 8 pods within one decider tick, before the first one is ready", async () => {
    const r = await coldBurst({
      port: chain.port,
      host: "hello.localhost",
      n: N,
      revisionsUrl: `${autoscaler.url}/v1/revisions`,
      token: TOKEN,
      name: rev.name,
    });
    console.log(figuresLine("nginx+hook+activator burst 10 at zero, CC 2, start 3 s, work 1.5 s", r));
    expect(r.statuses.filter((s) => s !== 200)).toEqual([]);
    // Counted once: the hook until it hands a request on, the activator from its arrival, the pods' proxied
    // share subtracted. Twice would ask for up to ceil(20 / 1.4) = 15; the activator's poke alone, for 1
    // until the first pod is scraped. Knative's 8 comes within one decider tick of the poke's step to 1.
    const reached = scaleReached(r, KNATIVE);
    // One decider tick: in one step (1, then 8) however late a loaded machine ran it, or within the tick's
    // 2 s when the held count came in two reports (each steps the decider at once while no pod is ready).
    expect(withinOneTick(reached), JSON.stringify(reached)).toBe(true);
    expect(reached.readyThen).toBe(0);
    expect(r.maxDesired).toBeLessThanOrEqual(AT_MOST);
  }, 90_000);
});

describe("nginx + hook + activator: a wake hint reaches the autoscaler (issue 28.4)", () => {
  it("a request on /login makes the activator pass a 120 s hint to the autoscaler, which holds it", async () => {
    const hintUntil = async () => {
      const all = (await (
        await fetch(`${autoscaler.url}/v1/revisions`, { headers: { authorization: `Bearer ${TOKEN}` } })
      ).json()) as { name: string; warm: { hintUntilMs: number | null } }[];
      return all.find((x) => x.name === rev.name)?.warm.hintUntilMs ?? null;
    };
    expect(await hintUntil()).toBeNull();
    const sent = Date.now();
    expect((await httpGet(chain.port, "hello.localhost", "/login")).status).toBe(200);
    for (let i = 0; i < 50 && (await hintUntil()) === null; i++) await new Promise((r) => setTimeout(r, 100));
    const until = await hintUntil();
    expect(until).toBeGreaterThanOrEqual(sent + 119_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 120_000);
  });
});
