import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HookService } from "../src/node/service.js";
import type { FakeActivator } from "./support/fake-activator.js";
import { type FakeChain, startFakeChain } from "./support/fake-chain.js";
import { type HttpAnswer, httpGet, waitForHttp } from "./support/http-get.js";
import {
  freePort,
  HOOK_TOKEN,
  type NginxProcess,
  requireNginx,
  startNginx,
} from "./support/nginx-process.js";

// A real Debian nginx running infra/nginx/nginx-direct.conf: warm requests go straight to the revision's
// address, and only a refused connection sends a request to the backup (the same nginx's cold server,
// which asks the hook). The revision's "Service" is a fixed loopback port that the fake activator's
// backend listens on once activated; nothing listens there while the revision is at zero, which is how a
// Kubernetes Service without ready endpoints answers under kube-proxy (the connection is rejected).
const KEY = "default/hello";

let chain: FakeChain;
let activator: FakeActivator;
let hook: HookService;
let nginx: NginxProcess;
let port: number;

beforeAll(async () => {
  requireNginx();
  const revisionPort = await freePort();
  chain = await startFakeChain(
    [{ namespace: "default", name: "hello", startupDelayMs: 300, port: revisionPort }],
    {
      token: HOOK_TOKEN,
      services: [{ name: "hello", namespace: "default", hosts: ["hello.localhost"] }],
      activationTimeoutMs: 5000,
      activatorUpstream: null,
    },
  );
  ({ activator, hook } = chain);
  port = await freePort();
  nginx = startNginx("nginx-direct.conf", {
    "127.0.0.1:8080": `127.0.0.1:${port}`,
    "127.0.0.1:8070": `127.0.0.1:${revisionPort}`,
    "127.0.0.1:8082": `127.0.0.1:${await freePort()}`,
    "127.0.0.1:8090": `127.0.0.1:${hook.port}`,
    "127.0.0.1:8089": `127.0.0.1:${chain.activatorPort}`,
  });
  await waitForHttp(port);
}, 30_000);

afterAll(async () => {
  await nginx?.stop();
  await chain?.close();
});

/** A POST with a body over a fresh connection; the backend echoes method, url and headers. */
function httpPost(path: string, body: string): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: "POST",
        headers: { host: "hello.localhost", "content-type": "text/plain" },
        agent: false,
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error("POST timed out")));
    req.on("error", reject);
    req.end(body);
  });
}

describe("nginx-direct.conf: warm requests never leave nginx (real nginx, fake-but-real activator)", () => {
  it("cold: the refused connection sends every request to the cold server, which wakes the revision once", async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => httpGet(port, "hello.localhost", `/cold/${i}`)),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(JSON.parse(answers[0]!.body)).toMatchObject({ method: "GET", url: "/cold/0" });
    expect(activator.starts).toBe(1);
    expect(hook.hook.stats.activations).toBe(1);
  });

  it("warm: requests reach the revision with no hook decision and no activator call", async () => {
    const before = { ...hook.hook.stats };
    const activations = activator.counts.activate;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => httpGet(port, "hello.localhost", `/warm/${i}`)),
    );
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    expect(hook.hook.stats.warmAllows).toBe(before.warmAllows);
    expect(hook.hook.stats.coldAllows).toBe(before.coldAllows);
    expect(activator.counts.activate).toBe(activations);
  });

  it("warm: internal headers a client sends do not reach the app", async () => {
    const r = await httpGet(port, "hello.localhost", "/h", {
      "k-network-probe": "queue",
      "knative-serving-revision": "other",
      "knative-serving-namespace": "other",
      "x-thaw-upstream": "10.9.9.9:80",
    });
    expect(r.status).toBe(200);
    const seen = JSON.parse(r.body) as { headers: Record<string, string> };
    for (const h of [
      "k-network-probe",
      "knative-serving-revision",
      "knative-serving-namespace",
      "x-thaw-upstream",
    ])
      expect(seen.headers[h]).toBeUndefined();
  });

  it("after the pod goes away, a POST with a body wakes the revision again and reaches the app with its body", async () => {
    activator.close(); // the backend exits: nothing listens at the revision's address
    activator.scaleToZero(KEY);
    // The watch stream tells the hook at once; an infinite `now` ignores answers kept only by their TTL.
    await expect
      .poll(() => hook.hook.cache.get(KEY, Number.POSITIVE_INFINITY), { timeout: 5000 })
      .toBeUndefined();
    const r = await httpPost("/again", "a body of 23 characters");
    expect(r.status).toBe(200);
    const seen = JSON.parse(r.body) as { method: string; url: string; headers: Record<string, string> };
    expect(seen).toMatchObject({ method: "POST", url: "/again" });
    expect(seen.headers["content-length"]).toBe("23");
    expect(activator.starts).toBe(2);
  });
});
