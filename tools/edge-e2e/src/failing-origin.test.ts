import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get } from "./http.js";
import { type Proc, start } from "./proc.js";
import { ROOT, startWranglerDev, type WranglerDev } from "./wrangler-dev.js";

/**
 * A broken app behind the edge (issue 27.1, at the edge): `thaw up` knows at once the revision is failing
 * (the app exits with code 3), answers the edge activator's `/v1/activate` with ERR_REVISION_FAILED and
 * the cause, and the edge passes both on to the held client well before the revision's timeout.
 */
const ORIGIN_TOKEN = "origin-token-e2e-0123456789";
const EDGE_TOKEN = "edge-token-e2e-0123456789";
const TIMEOUT_S = 60;

let dir: string;
let thaw: Proc;
let edge: WranglerDev;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "thaw-failing-origin-"));
  const file = join(dir, "thaw.config.yaml");
  const app = "console.error('boom'); process.exit(3)";
  writeFileSync(
    file,
    [
      "listen: 127.0.0.1:0",
      `token: ${ORIGIN_TOKEN}`,
      "services:",
      "  - name: hello", // the service the shipped edge configs name
      "    hosts: [hello.localhost]",
      `    timeoutSeconds: ${TIMEOUT_S}`,
      `    run: { command: [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(app)}] }`,
      "",
    ].join("\n"),
  );
  thaw = start(process.execPath, [join(ROOT, "apps/cli/bin/thaw.mjs"), "up", "--config", file]);
  const originUrl = (await thaw.waitFor(/gateway on (http:\/\/\S+)/))[1] as string;
  edge = await startWranglerDev({
    gatewayVars: { ORIGIN_URL: originUrl, ORIGIN_TOKEN, ACTIVATOR_TOKEN: EDGE_TOKEN },
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
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the edge in front of a failing revision", () => {
  it("answers the held request early with ERR_REVISION_FAILED and the app's exit as its cause", async () => {
    const began = Date.now();
    const r = await get(`${edge.url}/`, { host: "hello.localhost", timeoutMs: (TIMEOUT_S + 10) * 1000 });
    const waited = Date.now() - began;
    expect(r.status, r.body).toBe(503);
    const body = JSON.parse(r.body) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("ERR_REVISION_FAILED");
    expect(body.error.message).toMatch(/exited with code 3/);
    expect(body.error.message).toMatch(/boom/);
    expect(waited).toBeLessThan((TIMEOUT_S * 1000) / 3);
  }, 90_000);
});
