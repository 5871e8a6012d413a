import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HookService } from "../src/node/service.js";
import type { FakeActivator } from "./support/fake-activator.js";
import { type FakeChain, startFakeChain } from "./support/fake-chain.js";
import { httpGet } from "./support/http-get.js";
import { HOOK_TOKEN, type NginxProcess, requireNginx, startNginxForHook } from "./support/nginx-process.js";

// A real Debian nginx (user-space, loopback ports) running infra/nginx/nginx.conf, the hook service, a
// fake-but-real activator speaking CONTRACTS.md, and backends that start listening only once activated.
// The activation deadline. hello takes 800 ms to start; the margin above that is for a loaded CI, where 200
// requests through nginx and the hook with a 1.5 s deadline all ran out.
const TIMEOUT_MS = 4000;
const ROUTE_TOKEN = "change-me-route-token";

let chain: FakeChain;
let activator: FakeActivator;
let hook: HookService;
let nginx: NginxProcess;
let port: number;

beforeAll(async () => {
  requireNginx();
  chain = await startFakeChain(
    [
      { namespace: "default", name: "hello", startupDelayMs: 800 },
      { namespace: "default", name: "stuck", startupDelayMs: "never" },
    ],
    {
      // The token infra/nginx/nginx.conf sends in its auth locations: without it every request here fails.
      token: HOOK_TOKEN,
      services: [
        { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
        { name: "stuck", namespace: "default", hosts: ["stuck.localhost"] },
        { name: "ghost", namespace: "default", hosts: ["ghost.localhost"] },
      ],
      activationTimeoutMs: TIMEOUT_MS,
      routeToken: ROUTE_TOKEN,
      // The fake activator speaks /v1 only, with no request path: this is the hook without an activator
      // route, releasing held requests straight to the pod (nginx-activator.test.ts has the activator route).
      activatorUpstream: null,
    },
  );
  ({ activator, hook } = chain);
  ({ nginx, port } = await startNginxForHook(hook.port));
}, 30_000);

afterAll(async () => {
  await nginx?.stop();
  await chain?.close();
});

describe("nginx auth_request + hook + activator (real nginx)", () => {
  it("the hook answers no forward-auth call without its token (nginx's auth location sends it)", async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong-token-of-the-same-len" }];
    for (const headers of attempts) {
      const r = await fetch(`http://127.0.0.1:${hook.port}/nginx`, {
        headers: { ...headers, "x-forwarded-host": "hello.localhost", "x-original-uri": "/" },
      });
      expect(r.status).toBe(401);
    }
    expect(activator.counts.activate).toBe(0);
  });

  it("200 concurrent cold requests all succeed after exactly one activation", async () => {
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => httpGet(port, "hello.localhost", `/c/${i}`)),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ method: "GET", url: "/c/0" });
    expect(activator.starts).toBe(1);
    expect(activator.counts.activate).toBe(1);
    expect(hook.hook.stats.activations).toBe(1);
  });

  it("warm requests pass without any call to the activator (and mostly from nginx's auth cache)", async () => {
    // past the hook's 2 s warm TTL: the entry stays warm because /v1/watch pushed the ready pod
    await new Promise((r) => setTimeout(r, 2500));
    const before = { ...activator.counts };
    const warmAllowsBefore = hook.hook.stats.warmAllows;
    const n = 300;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        Array.from({ length: n / 3 }, () => httpGet(port, "hello.localhost", "/w")),
      );
      expect(answers.every((a) => a.status === 200)).toBe(true);
    }
    expect(activator.counts).toEqual(before);
    // nginx answered most auth checks from its per-revision cache and still routed to the pod
    expect(hook.hook.stats.warmAllows - warmAllowsBefore).toBeLessThan(n);
  });

  it("spoofed internal headers from the client never reach the backend, nor pick a revision", async () => {
    const spoof = {
      "K-Network-Probe": "queue",
      "K-Network-Hash": "override",
      "K-Proxy-Request": "activator",
      "K-Original-Host": "evil.example",
      "K-Kubelet-Probe": "x",
      "Knative-Serving-Namespace": "default",
      "Knative-Serving-Revision": "stuck",
      "Knative-Serving-Tag": "x",
      "X-Thaw-Upstream": "127.0.0.1:1",
      "X-Thaw-Route-Token": "guess",
    };
    const a = await httpGet(port, "hello.localhost", "/spoof", spoof);
    expect(a.status).toBe(200);
    const seen = Object.keys((JSON.parse(a.body) as { headers: Record<string, string> }).headers);
    const leaked = seen.filter((h) => /^(k-|knative-|x-thaw-)/.test(h));
    expect(leaked).toEqual([]);
    // the unknown host with client-sent route headers is still unknown: the client cannot pick a revision
    const b = await httpGet(port, "nobody.localhost", "/x", spoof);
    expect(b.status).toBe(404);
  });

  it("a pushed scale to zero makes the revision cold again once nginx's cached allow has run out", async () => {
    const before = activator.counts.activate;
    activator.scaleToZero("default/hello");
    // nginx may answer from its cached allow for max-age (1 s) plus stale-while-revalidate (1 s), counted in
    // whole seconds, so up to 3 s
    await new Promise((r) => setTimeout(r, 3100));
    const a = await httpGet(port, "hello.localhost", "/again");
    expect(a.status).toBe(200);
    expect(activator.counts.activate).toBe(before + 1);
    expect(activator.starts).toBe(2);
  });

  it("a route-set revision (proxy_set_header + route token) is believed", async () => {
    const a = await httpGet(port, "unrouted.localhost", "/pinned/x");
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toMatchObject({ url: "/pinned/x" });
  });

  it("an unknown host is a 404 with a JSON body", async () => {
    const a = await httpGet(port, "nobody.localhost", "/");
    expect(a.status).toBe(404);
    expect(JSON.parse(a.body)).toMatchObject({ error: { code: "ERR_UNKNOWN_REVISION" } });
  });

  it("the activator's 404 for a revision it does not know is a 404", async () => {
    const a = await httpGet(port, "ghost.localhost", "/");
    expect(a.status).toBe(404);
    expect(a.body).toContain("unknown revision default/ghost");
  });

  it("a backend that never becomes ready yields 503 with Retry-After within the deadline", async () => {
    const t0 = performance.now();
    const a = await httpGet(port, "stuck.localhost", "/");
    const elapsed = performance.now() - t0;
    expect(a.status).toBe(503);
    expect(a.headers["retry-after"]).toBe("2");
    expect(JSON.parse(a.body)).toMatchObject({ error: { code: "ERR_ACTIVATION_TIMEOUT" } });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    // the hook gives up at the deadline plus 1 s of grace for a silent activator; slack for a loaded CI
    expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
  });
});
