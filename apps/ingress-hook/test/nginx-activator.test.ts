import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { type RunningActivator, readConfig, startActivator } from "@thaw/activator/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HookService, startIngressHook } from "../src/node/service.js";
import { httpGet } from "./support/http-get.js";
import { freePort, type NginxProcess, requireNginx, startNginxForHook } from "./support/nginx-process.js";

// The same chain as nginx.test.ts, with the real @thaw/activator (Node) instead of the fake: its local
// coordinator probes the pods (K-Network-Probe: queue) and pokes a scaler that starts a slow backend.
const TIMEOUT_MS = 1500;
const TOKEN = "activator-token-for-tests";

/** The literal in infra/nginx/nginx.conf's `proxy_set_header Authorization` lines. */
const HOOK_TOKEN = "change-me-to-a-long-random-string";

let activator: RunningActivator;
let hook: HookService;
let nginx: NginxProcess;
let port: number;
const calls = { activate: 0, watch: 0, other: 0 };
const pokes: string[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  requireNginx();
  const helloPort = await freePort();
  const stuckPort = await freePort();
  const script = fileURLToPath(new URL("./support/slow-backend.mjs", import.meta.url));
  // The activator's own configuration reader, with the flags its bin takes.
  const revisions = [
    { namespace: "default", name: "hello", endpoints: [`127.0.0.1:${helloPort}`] },
    { namespace: "default", name: "stuck", endpoints: [`127.0.0.1:${stuckPort}`] },
  ];
  const read = readConfig(
    ["--host", "127.0.0.1", "--port", "0", "--token", TOKEN, "--revisions", JSON.stringify(revisions)],
    {},
  );
  if (!read.ok) throw new Error(`activator config: ${JSON.stringify(read.issues)}`);
  activator = await startActivator(read.config, {
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
  });
  let watchUp: () => void = () => {};
  const watching = new Promise<void>((r) => {
    watchUp = r;
  });
  hook = await startIngressHook({
    port: 0,
    // The token infra/nginx/nginx.conf sends in its auth locations: without it every request here fails.
    token: HOOK_TOKEN,
    activatorUrl: `http://127.0.0.1:${activator.port}`,
    activatorToken: TOKEN,
    services: [
      { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
      { name: "stuck", namespace: "default", hosts: ["stuck.localhost"] },
    ],
    activationTimeoutMs: TIMEOUT_MS,
    // Counts what the activator receives from the hook.
    fetch: (r) => {
      const path = new URL(r.url).pathname;
      if (path === "/v1/activate") calls.activate++;
      else if (path === "/v1/watch") calls.watch++;
      else calls.other++;
      return fetch(r);
    },
    onWatchState: (s) => {
      if (s === "connected") watchUp();
    },
  });
  await watching;
  ({ nginx, port } = await startNginxForHook(hook.port));
}, 30_000);

afterAll(async () => {
  await nginx?.stop();
  await hook?.close();
  await activator?.close();
  for (const c of children) c.kill("SIGTERM");
});

describe("nginx + hook + the real @thaw/activator", () => {
  it("200 concurrent cold requests all succeed after one activation and one scaler poke", async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => httpGet(port, "hello.localhost", `/c/${i}`)),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(JSON.parse(answers[7]!.body)).toMatchObject({ url: "/c/7" });
    expect(calls.activate).toBe(1);
    expect(pokes.filter((p) => p === "default/hello")).toHaveLength(1);
  });

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
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
  });
});
