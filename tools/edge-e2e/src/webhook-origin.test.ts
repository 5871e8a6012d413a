import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scaleRequest, signScaleWebhook } from "@thaw/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EdgeTarget,
  expectColdBurstOneActivation,
  expectOriginGone503,
  expectWarmSkipsActivator,
} from "./edge-checks.js";
import { get } from "./http.js";
import { type Proc, start } from "./proc.js";
import { freePort, ROOT, startWranglerDev, type WranglerDev } from "./wrangler-dev.js";

const SECRET = "webhook-secret-e2e-0123456789";
const EDGE_TOKEN = "edge-token-e2e-b-0123456789";
const HOST = "hello.localhost";
const rev = { namespace: "default", name: "hello" };

let dir: string;
let autoscaler: Proc;
let receiverUrl: string;
let edge: WranglerDev;
/** The edge as the shared checks address it (read once wrangler dev is up). */
const target = (): EdgeTarget => ({ url: edge.url, token: EDGE_TOKEN, host: HOST });
/**
 * thaw-autoscaler's scale-ups from zero: it logs one pino JSON line per scale event (`msg: "scale"`, which
 * pino writes after the fields), read as JSON so the order of the fields does not matter.
 */
const scaleUps = () =>
  autoscaler
    .out()
    .split("\n")
    .flatMap((line) => {
      try {
        const e = JSON.parse(line) as { msg?: unknown; from?: unknown };
        return e.msg === "scale" && e.from === 0 ? [e] : [];
      } catch {
        return [];
      }
    });

beforeAll(async () => {
  // Origin b: the sample app (3 s before it listens) behind a real thaw-queue-proxy at a fixed address
  // (run.servingPort), scaled by thaw-autoscaler, whose POST /v1/scale receives the signed webhook.
  dir = mkdtempSync(join(tmpdir(), "thaw-origin-b-"));
  const servingPort = await freePort();
  const listen = `127.0.0.1:${await freePort()}`;
  const file = join(dir, "thaw.config.yaml");
  writeFileSync(
    file,
    [
      "drain: { quietPeriod: 1s }",
      "services:",
      "  - name: hello",
      `    hosts: [${HOST}]`,
      "    run:",
      `      command: [node, ${join(ROOT, "examples/hello/server.mjs")}]`,
      '      env: { STARTUP_DELAY_MS: "3000" }',
      `      servingPort: ${servingPort}`,
      "",
    ].join("\n"),
  );
  // docs/edge.md: `THAW_SCALE_WEBHOOK_SECRET=... npx thaw-autoscaler --config ... --listen ...`.
  autoscaler = start(
    process.execPath,
    [join(ROOT, "apps/autoscaler/bin/thaw-autoscaler.mjs"), "--config", file, "--listen", listen],
    { THAW_SCALE_WEBHOOK_SECRET: SECRET },
  );
  await autoscaler.waitFor(/thaw-autoscaler listening/);
  receiverUrl = `http://${listen}`;
  edge = await startWranglerDev({
    gatewayVars: {
      ORIGIN_URL: `http://127.0.0.1:${servingPort}`,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
      WARM_TTL_MS: "30000",
    },
    activatorVars: {
      THAW_ORIGIN_URL: "",
      SCALE_WEBHOOK_URL: `${receiverUrl}/v1/scale`,
      SCALE_WEBHOOK_SECRET: SECRET,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
      REVISIONS: JSON.stringify([{ ...rev, endpoints: [`127.0.0.1:${servingPort}`] }]),
    },
  });
}, 60_000);

afterAll(async () => {
  await edge?.stop();
  await autoscaler?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("wrangler dev in front of a queue-proxy whose scaler receives the scale webhook (origin b)", () => {
  it("a bad webhook signature is refused with 401 and changes nothing", async () => {
    const body = JSON.stringify(scaleRequest({ ...rev, desiredScale: 1, reason: "forged" }, Date.now()));
    const headers = await signScaleWebhook("not-the-shared-secret-000", body, Date.now());
    const forged = await get(`${receiverUrl}/v1/scale`, { method: "POST", headers, body });
    expect(forged.status).toBe(401);
    await new Promise((r) => setTimeout(r, 500));
    expect(scaleUps()).toEqual([]);
  });

  it("50 concurrent cold requests at the edge all answer 200 after one signed webhook and a 3 s cold start", async () => {
    await expectColdBurstOneActivation(target(), scaleUps);
  });

  it("warm requests go straight to the queue-proxy: no activator call", async () => {
    await expectWarmSkipsActivator(target());
  });

  it("the origin going away (receiver and pods) gives 503 + Retry-After, never a hang", async () => {
    await autoscaler.stop();
    await expectOriginGone503(target());
  });
});
