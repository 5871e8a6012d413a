import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorCalls, type ActivatorChain, startActivatorChain } from "./support/activator-chain.js";
import { httpGet } from "./support/http-get.js";
import { freePort, requireNginx } from "./support/nginx-process.js";

// The same chain as nginx.test.ts, with the real @thaw/activator (Node) instead of the fake: its local
// coordinator probes the pods (K-Network-Probe: queue) and pokes a scaler that starts a slow backend.
/**
 * The hook's activation deadline. The cold burst's pod is a node process spawned at the poke, listening
 * 800 ms after it starts: at load 14 its start alone outlasted a 1.5 s deadline and all 200 got 503.
 */
const TIMEOUT_MS = 10_000;
const TOKEN = "activator-token-for-tests";

let chain: ActivatorChain;
let port: number;
let calls: ActivatorCalls;
const pokes: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  requireNginx();
  const helloPort = await freePort();
  const stuckPort = await freePort();
  const script = fileURLToPath(new URL("./support/slow-backend.mjs", import.meta.url));
  chain = await startActivatorChain({
    token: TOKEN,
    revisions: [
      { namespace: "default", name: "hello", endpoints: [`127.0.0.1:${helloPort}`] },
      { namespace: "default", name: "stuck", endpoints: [`127.0.0.1:${stuckPort}`] },
    ],
    services: [
      { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
      { name: "stuck", namespace: "default", hosts: ["stuck.localhost"] },
    ],
    hook: { activationTimeoutMs: TIMEOUT_MS },
    overrides: {
      scaler: {
        // The "scaler": start the revision's pod, which listens only after its startup delay.
        poke: (key) => {
          pokes.push(`${key.namespace}/${key.name}`);
          if (key.name !== "hello" || pokes.filter((p) => p === "default/hello").length > 1) return;
          children.push(
            spawn(process.execPath, [script], {
              env: { ...process.env, PORT: String(helloPort), STARTUP_DELAY_MS: "800" },
              stdio: "ignore",
            }),
          );
        },
      },
    },
  });
  ({ port, calls } = chain);
}, 30_000);

afterAll(async () => {
  await chain?.close();
  for (const c of children) c.kill("SIGTERM");
});

describe("nginx + hook + the real @thaw/activator", () => {
  it("200 concurrent cold requests all succeed after one activation and one scaler poke", async () => {
    // Odd ones carry a client's own revision headers: on the way to the activator nginx replaces them
    // with the hook's, so they cannot steer a held request to another revision.
    const spoof = { "Knative-Serving-Namespace": "default", "Knative-Serving-Revision": "stuck" };
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        httpGet(port, "hello.localhost", `/c/${i}`, i % 2 === 1 ? spoof : {}),
      ),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(JSON.parse(answers[7]!.body)).toMatchObject({ url: "/c/7" });
    // They went through the activator (K-Proxy-Request), which removed the revision headers.
    const seen = (JSON.parse(answers[7]!.body) as { headers: Record<string, string> }).headers;
    expect(seen["k-proxy-request"]).toBe("activator");
    expect(Object.keys(seen).filter((h) => h.startsWith("knative-"))).toEqual([]);
    expect(calls.activate).toBe(1);
    expect(pokes.filter((p) => p === "default/hello")).toHaveLength(1);
  }, 60_000);

  it("warm requests make no call to the activator, past the hook's TTL too (the watch vouches)", async () => {
    const before = { ...calls };
    // longer than the hook's 2 s warm TTL: the entry stays warm because /v1/watch pushed the ready pod
    await new Promise((r) => setTimeout(r, 2500));
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => httpGet(port, "hello.localhost", "/w")),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    expect(calls).toEqual(before);
  });

  it("spoofed internal headers never reach the backend", async () => {
    const a = await httpGet(port, "hello.localhost", "/spoof", {
      "K-Network-Probe": "queue",
      "K-Proxy-Request": "activator",
      "Knative-Serving-Revision": "stuck",
      "X-Thaw-Upstream": "127.0.0.1:1",
    });
    expect(a.status).toBe(200);
    const seen = Object.keys((JSON.parse(a.body) as { headers: Record<string, string> }).headers);
    expect(seen.filter((h) => /^(k-|knative-|x-thaw-)/.test(h))).toEqual([]);
  });

  it("a revision whose pod never becomes ready yields 503 with Retry-After within the deadline", async () => {
    const t0 = performance.now();
    const a = await httpGet(port, "stuck.localhost", "/");
    const elapsed = performance.now() - t0;
    expect(a.status).toBe(503);
    expect(Number(a.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(a.body)).toMatchObject({ error: { code: "ERR_ACTIVATION_TIMEOUT" } });
    // Answered at the deadline, not before it and not left hanging (a loaded machine's slack allowed).
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(elapsed).toBeLessThan(2 * TIMEOUT_MS);
  }, 60_000);
});
