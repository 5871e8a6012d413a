import { join } from "node:path";
import {
  type AutoscalerServer,
  AutoscalerService,
  LocalScaler,
  policyFor,
  startAutoscalerServer,
} from "@thaw/autoscaler-service";
import { systemClock } from "@thaw/clock";
import { scaleRequest, signScaleWebhook } from "@thaw/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counters, get, wakesOf } from "./http.js";
import { freePort, ROOT, startWranglerDev, type WranglerDev } from "./wrangler-dev.js";

const SECRET = "webhook-secret-e2e-0123456789";
const EDGE_TOKEN = "edge-token-e2e-b-0123456789";
const HOST = "hello.localhost";
const rev = { namespace: "default", name: "hello" };

let scaler: LocalScaler;
let service: AutoscalerService;
let receiver: AutoscalerServer;
let edge: WranglerDev;
let servingPort: number;
const scaleUps: string[] = [];

beforeAll(async () => {
  // Origin b: the sample app (3 s before it listens) behind a real thaw-queue-proxy at a fixed address,
  // scaled by thaw-autoscaler's service, whose HTTP server is the webhook receiver (POST /v1/scale).
  servingPort = await freePort();
  scaler = new LocalScaler();
  scaler.register({
    ...rev,
    command: ["node", join(ROOT, "examples/hello/server.mjs")],
    env: { STARTUP_DELAY_MS: "3000" },
    portEnv: "PORT",
    containerConcurrency: 0,
    timeoutSeconds: 300,
    drainQuietPeriodMs: 500,
    servingPort,
  });
  service = new AutoscalerService({ scaler, clock: systemClock });
  const policy = policyFor({ global: {}, autoscaling: {}, containerConcurrency: 0 });
  if (!policy.ok) throw new Error(JSON.stringify(policy.issues));
  service.addRevision(rev, policy.value);
  service.on((e) => {
    if (e.type === "scale" && e.from === 0) scaleUps.push(`${e.from}->${e.to}`);
  });
  service.start();
  receiver = await startAutoscalerServer({ service, clock: systemClock, scaleWebhookSecret: SECRET });
  edge = await startWranglerDev({
    gatewayVars: {
      ORIGIN_URL: `http://127.0.0.1:${servingPort}`,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
      WARM_TTL_MS: "30000",
    },
    activatorVars: {
      THAW_ORIGIN_URL: "",
      SCALE_WEBHOOK_URL: `${receiver.url}/v1/scale`,
      SCALE_WEBHOOK_SECRET: SECRET,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
      REVISIONS: JSON.stringify([{ ...rev, endpoints: [`127.0.0.1:${servingPort}`] }]),
    },
  });
}, 60_000);

afterAll(async () => {
  await edge?.stop();
  await service?.stop();
  await receiver?.close();
  await scaler?.close();
}, 60_000);

describe("wrangler dev in front of a queue-proxy whose scaler receives the scale webhook (origin b)", () => {
  it("a bad webhook signature is refused with 401 and changes nothing", async () => {
    const body = JSON.stringify(scaleRequest({ ...rev, desiredScale: 1, reason: "forged" }, Date.now()));
    const headers = await signScaleWebhook("not-the-shared-secret-000", body, Date.now());
    const forged = await get(`${receiver.url}/v1/scale`, { method: "POST", headers, body });
    expect(forged.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    expect(scaleUps).toEqual([]);
    expect(scaler.pids()).toEqual([]);
  });

  it("50 concurrent cold requests at the edge all answer 200 after one signed webhook and a 3 s cold start", async () => {
    const t0 = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => get(`${edge.url}/cold/${i}`, { host: HOST, timeoutMs: 45_000 })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
    expect(answers[0]?.body).toMatch(/^hello from hello-/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2500);
    const c = await counters(edge.url, EDGE_TOKEN);
    expect(c.hook.activations).toBe(1);
    expect(wakesOf(c, "hello")).toBe(1);
    expect(scaleUps).toEqual(["0->1"]);
  });

  it("warm requests go straight to the queue-proxy: no activator call", async () => {
    const before = await counters(edge.url, EDGE_TOKEN);
    for (let i = 0; i < 20; i++)
      expect((await get(`${edge.url}/warm/${i}`, { host: HOST })).status).toBe(200);
    const after = await counters(edge.url, EDGE_TOKEN);
    expect(after.hook.activations - before.hook.activations).toBe(0);
    expect(wakesOf(after, "hello") - wakesOf(before, "hello")).toBe(0);
  });

  it("the origin going away (receiver and pods) gives 503 + Retry-After, never a hang", async () => {
    await service.stop();
    await receiver.close();
    await scaler.close();
    for (const path of ["/after/warm-entry", "/after/cold-again"]) {
      const a = await get(`${edge.url}${path}`, { host: HOST, timeoutMs: 20_000 });
      expect(a.status).toBe(503);
      expect(Number(a.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
  });
});
