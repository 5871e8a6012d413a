import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { httpGet } from "./support/http-get.js";
import { freePort, requireNginx } from "./support/nginx-process.js";

// nginx -> the hook (forward-auth) -> the real @thaw/activator, with a `warm:` rule: a request on /login
// makes the hook send a wake hint for the API behind it, authenticated, without holding the request.
const TOKEN = "activator-token-for-warm-tests";

let chain: ActivatorChain;
let port: number;
const hints: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  requireNginx();
  const appPort = await freePort();
  const apiPort = await freePort();
  const script = fileURLToPath(new URL("./support/slow-backend.mjs", import.meta.url));
  children.push(
    spawn(process.execPath, [script], {
      env: { ...process.env, PORT: String(appPort), STARTUP_DELAY_MS: "0" },
      stdio: "ignore",
    }),
  );
  chain = await startActivatorChain({
    token: TOKEN,
    revisions: [
      { namespace: "default", name: "app", endpoints: [`127.0.0.1:${appPort}`] },
      { namespace: "default", name: "api", endpoints: [`127.0.0.1:${apiPort}`] },
    ],
    services: [
      { name: "app", namespace: "default", hosts: ["app.localhost"] },
      { name: "api", namespace: "default", hosts: ["api.localhost"] },
    ],
    hook: {
      activationTimeoutMs: 5000,
      warm: [
        { path: "/login", hosts: [], services: [{ namespace: "default", name: "api" }], ttlSeconds: 120 },
      ],
    },
    overrides: {
      scaler: { poke: () => {} },
      warm: (key, ttlMs) => {
        hints.push(`${key.namespace}/${key.name} ${ttlMs}`);
        return Date.now() + ttlMs;
      },
    },
  });
  ({ port } = chain);
}, 30_000);

afterAll(async () => {
  await chain?.close();
  for (const c of children) c.kill("SIGKILL");
});

describe("nginx + hook: wake hints on a chosen path", () => {
  it("a request elsewhere sends no hint", async () => {
    // Twice: the second is a warm allow, which nginx may keep for a second under the host's cache key.
    for (let i = 0; i < 2; i++) {
      const r = await httpGet(port, "app.localhost", "/home");
      expect(r.status).toBe(200);
    }
    expect(hints).toEqual([]);
  });

  it("a request on /login is answered and sends one hint for the API, through the activator's /v1/activate", {
    timeout: 30_000,
  }, async () => {
    const r = await httpGet(port, "app.localhost", "/login");
    expect(r.status).toBe(200);
    // The hint is sent beside the answer: wait for it, bounded (a loaded machine can take seconds).
    const deadline = Date.now() + 20_000;
    while (hints.length === 0 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
    expect(hints).toEqual(["default/api 120000"]);
  });
});
