import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EdgeTarget,
  expectColdBurstOneActivation,
  expectOriginGone503,
  expectWarmSkipsActivator,
} from "./edge-checks.js";
import { get } from "./http.js";
import { type Proc, start } from "./proc.js";
import { ROOT, startWranglerDev, type WranglerDev } from "./wrangler-dev.js";

const ORIGIN_TOKEN = "origin-token-e2e-0123456789";
const EDGE_TOKEN = "edge-token-e2e-0123456789";
const HOST = "hello.localhost";

let dir: string;
let thaw: Proc;
let originUrl: string;
let edge: WranglerDev;
/** The edge as the shared checks address it (read once wrangler dev is up). */
const target = (): EdgeTarget => ({ url: edge.url, token: EDGE_TOKEN, host: HOST });
/** `thaw up` prints one line per scale event: `<time>  default/hello  0 -> 1  <reason>`. */
const scaleUps = () => thaw.out().match(/default\/hello\s+0 -> \d+/g) ?? [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "thaw-origin-a-"));
  const file = join(dir, "thaw.config.yaml");
  // The sample app, 3 s before it listens: a real cold start, longer than any old 1 s default.
  writeFileSync(
    file,
    [
      "listen: 127.0.0.1:0",
      `token: ${ORIGIN_TOKEN}`,
      "drain: { quietPeriod: 1s }",
      "services:",
      "  - name: hello",
      `    hosts: [${HOST}]`,
      "    readinessProbe: { httpGet: { path: /healthz } }",
      "    run:",
      `      command: [node, ${join(ROOT, "examples/hello/server.mjs")}]`,
      '      env: { STARTUP_DELAY_MS: "3000" }',
      "",
    ].join("\n"),
  );
  // docs/edge.md: `npx thaw up --config edge-origin.yaml` (here on a free port).
  thaw = start(process.execPath, [join(ROOT, "apps/cli/bin/thaw.mjs"), "up", "--config", file]);
  originUrl = (await thaw.waitFor(/gateway on (http:\/\/\S+)/))[1] as string;
  // The shipped configs with only this run's addresses and tokens; ACTIVATION_TIMEOUT_MS stays as shipped.
  edge = await startWranglerDev({
    gatewayVars: { ORIGIN_URL: originUrl, ORIGIN_TOKEN, ACTIVATOR_TOKEN: EDGE_TOKEN, WARM_TTL_MS: "30000" },
    activatorVars: {
      THAW_ORIGIN_URL: originUrl,
      THAW_ORIGIN_TOKEN: ORIGIN_TOKEN,
      ACTIVATOR_TOKEN: EDGE_TOKEN,
    },
  });
}, 60_000);

afterAll(async () => {
  await edge?.stop();
  await thaw?.stop();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("wrangler dev (gateway + activator Workers) in front of thaw up (origin a: the activation API)", () => {
  it("prints no token: edge-dev puts them in .dev.vars, which wrangler shows as (hidden), not in vars", () => {
    const out = edge.proc.out();
    expect(out).toMatch(/env\.ORIGIN_TOKEN \("\(hidden\)"\)/);
    expect(out).toMatch(/env\.THAW_ORIGIN_TOKEN \("\(hidden\)"\)/);
    expect(out).not.toContain(ORIGIN_TOKEN);
    expect(out).not.toContain(EDGE_TOKEN);
  });

  it("a wrong token is refused with 401 and changes nothing", async () => {
    const body = JSON.stringify({ namespace: "default", name: "hello", timeoutMs: 1000 });
    const wrong = await get(`${originUrl}/v1/activate`, {
      method: "POST",
      headers: { authorization: "Bearer not-the-token-at-all", "content-type": "application/json" },
      body,
    });
    expect(wrong.status).toBe(401);
    expect((await get(`${edge.url}/_thaw/edge`, { headers: { authorization: "Bearer nope" } })).status).toBe(
      401,
    );
    // A forwarded Host is believed only with the origin's token.
    const spoof = await get(`${originUrl}/`, {
      headers: { "x-forwarded-host": HOST, "x-thaw-route-token": "guessed-route-token-0000" },
    });
    expect(spoof.status).toBe(404);
    expect(scaleUps()).toEqual([]);
  });

  it("50 concurrent cold requests at the edge all answer 200 after one activation of a 3 s cold start", async () => {
    await expectColdBurstOneActivation(target(), scaleUps);
  });

  it("warm requests go straight to the origin: no activator call", async () => {
    const { before, after } = await expectWarmSkipsActivator(target());
    expect(after.hook.warmAllows - before.hook.warmAllows).toBe(20);
  });

  it("the origin going away gives 503 + Retry-After, never a hang", async () => {
    await thaw.stop();
    expect(thaw.out()).toMatch(/no pod left running/);
    await expectOriginGone503(target());
  });
});
