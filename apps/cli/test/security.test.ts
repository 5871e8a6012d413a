import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { Stack } from "../src/stack.js";
import { appService, echoApp, echoConfig, request, stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const TOKEN = "t0ken-for-the-security-suite";
const host = { host: "echo.localhost" };

describe("thaw up gateway with a token (real stack, real pods)", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom(echoConfig([`token: ${TOKEN}`])));
  });
  afterAll(() => dispose?.());

  it.each([
    ["GET", "/_thaw/"],
    ["GET", "/_thaw/api/revisions"],
    ["GET", "/_thaw/api/stream"],
    ["GET", "/_thaw/metrics"],
    ["GET", "/_thaw/assets/uplot.js"],
    ["GET", "/_thaw/auth/nginx"],
    ["GET", "/_thaw/auth/traefik"],
    ["GET", "/_thaw/auth/envoy/"],
    ["POST", "/v1/activate"],
    ["GET", "/v1/watch"],
    ["GET", "/v1/status"],
  ])("%s %s answers 401 without the token and wakes nothing", async (method, path) => {
    const r = await request(stack.url, {
      method,
      path,
      headers: { ...host, "x-forwarded-host": "echo.localhost", "x-original-uri": "/" },
      ...(method === "POST"
        ? { body: JSON.stringify({ namespace: "default", name: "echo", timeoutMs: 1000 }) }
        : {}),
    });
    expect(r.status).toBe(401);
    expect(r.body).not.toContain("127.0.0.1");
    expect(stack.scaler.pids()).toEqual([]);
  });

  it("answers the status API and forward-auth with the bearer token", async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    const api = await request(stack.url, { path: "/_thaw/api/revisions", headers: auth });
    expect(api.status).toBe(200);
    expect(JSON.parse(api.body)[0]).toMatchObject({ namespace: "default", name: "echo" });
    const wrong = await request(stack.url, {
      path: "/_thaw/api/revisions",
      headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
    });
    expect(wrong.status).toBe(401);
  });

  it("Knative-Serving-* from a client never routes by name (no host match, no token)", async () => {
    for (const path of ["/", "/v1/anything", "/v1/activate"]) {
      const r = await request(stack.url, {
        path,
        headers: {
          host: "nowhere.example",
          "knative-serving-namespace": "default",
          "knative-serving-revision": "echo",
          "x-envoy-decorator-operation": "echo.default.svc.cluster.local:80/*",
        },
      });
      expect(r.status, path).not.toBe(200);
      expect(r.body, path).not.toContain('"pod"');
    }
    expect(stack.scaler.pids()).toEqual([]);
  });
});

describe("thaw up gateway: forwarding headers and websockets (real stack, real pods)", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom(echoConfig()));
  });
  afterAll(() => dispose?.());

  it("carries a websocket upgrade to a cold service: 101, then frames both ways", async () => {
    const ws = new WebSocket(`${stack.url.replace("http", "ws")}/chat`, { headers: host });
    const got: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      ws.on("message", (d) => {
        got.push(String(d));
        if (got.length === 1) ws.send("ping");
        else resolve();
      });
      ws.on("error", reject);
      ws.on("unexpected-response", (_req, res) => reject(new Error(`no upgrade: HTTP ${res.statusCode}`)));
    });
    await done;
    ws.close();
    expect(got[0]).toMatch(/^hello from echo-\S+ \/chat$/);
    expect(got[1]).toBe("echo ping");
  });

  it("carries a websocket upgrade to a warm service", async () => {
    expect((await request(stack.url, { headers: host })).status).toBe(200);
    const ws = new WebSocket(`${stack.url.replace("http", "ws")}/warm`, { headers: host });
    const first = await new Promise<string>((resolve, reject) => {
      ws.once("message", (d) => resolve(String(d)));
      ws.on("error", reject);
      ws.on("unexpected-response", (_req, res) => reject(new Error(`no upgrade: HTTP ${res.statusCode}`)));
    });
    ws.close();
    expect(first).toMatch(/\/warm$/);
  });

  // Issue 26: without a token a cross-site text/plain POST from a browser woke a service, and the status
  // API answered under any Host.
  it.each([
    ["cross-site text/plain POST /v1/activate", "POST", "/v1/activate", { "sec-fetch-site": "cross-site" }],
    ["POST /v1/activate from another origin", "POST", "/v1/activate", { origin: "https://evil.example" }],
    ["GET /v1/status under another Host", "GET", "/v1/status", { host: "evil.example" }],
    [
      "GET /_thaw/api/revisions under another Host",
      "GET",
      "/_thaw/api/revisions",
      { host: "evil.example:80" },
    ],
    ["GET /_thaw/ from a same-site page", "GET", "/_thaw/", { "sec-fetch-site": "same-site" }],
  ])("no token: %s is refused 403", async (_name, method, path, extra) => {
    const r = await request(stack.url, {
      method,
      path,
      headers: { host: new URL(stack.url).host, "content-type": "text/plain", ...extra },
      ...(method === "POST"
        ? { body: JSON.stringify({ namespace: "default", name: "echo", timeoutMs: 1 }) }
        : {}),
    });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.code).toBe("ERR_FORBIDDEN");
  });

  it("no token: the same endpoints answer a loopback Host and a same-origin page", async () => {
    const own = new URL(stack.url).host;
    for (const host of [own, `localhost:${new URL(stack.url).port}`]) {
      expect((await request(stack.url, { path: "/v1/status", headers: { host } })).status).toBe(200);
    }
    const r = await request(stack.url, {
      path: "/_thaw/api/revisions",
      headers: { host: own, origin: `http://${own}`, "sec-fetch-site": "same-origin" },
    });
    expect(r.status).toBe(200);
  });

  it("replaces a client's X-Forwarded-*/Forwarded with the real peer (no trusted proxy configured)", async () => {
    const r = await request(stack.url, {
      headers: {
        ...host,
        "x-forwarded-for": "6.6.6.6",
        "x-forwarded-proto": "https",
        "x-forwarded-host": "bank.example",
        forwarded: "for=6.6.6.6;proto=https",
      },
    });
    expect(r.status).toBe(200);
    const seen = JSON.parse(r.body).headers as Record<string, string>;
    expect(seen["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen["x-forwarded-proto"]).toBe("http");
    expect(seen["x-forwarded-host"]).toBe("echo.localhost");
    expect(seen.forwarded).toBe("for=127.0.0.1;host=echo.localhost;proto=http");
  });
});

// Issue 26: a client named the gateway's own forwarding headers in Connection, and the hop-by-hop pass that
// ran after the gateway added them removed them: the app saw an outside request as from nobody.
describe("thaw up: Connection naming the gateway's forwarding headers removes none of them", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom([
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
      "services:",
      // Through the activator (the default burst capacity keeps it in proxy mode)...
      ...appService("echo", echoApp, ["    timeoutSeconds: 30"]),
      // ...and straight to the pod (burst capacity 0: serve mode as soon as a pod is ready).
      ...appService("direct", echoApp, [
        "    timeoutSeconds: 30",
        "    autoscaling: { target-burst-capacity: 0 }",
      ]),
    ]));
  });
  afterAll(() => dispose?.());

  const named = "forwarded, x-forwarded-for, x-forwarded-host, x-forwarded-proto, k-proxy-request";
  it.each([
    ["echo", "cold, through the activator", "activator"],
    ["echo", "warm, through the activator", "activator"],
    ["direct", "cold", undefined],
    ["direct", "warm, straight to the pod", undefined],
  ])("%s (%s)", async (name, _how, proxyRequest) => {
    if (name === "direct" && _how.startsWith("warm")) {
      await until(
        async () => stack.service.revisions().find((r) => r.name === "direct")?.mode === "serve",
        20_000,
        "serve mode",
      );
    }
    const r = await request(stack.url, { headers: { host: `${name}.localhost`, connection: named } });
    expect(r.status, r.body).toBe(200);
    const seen = JSON.parse(r.body).headers as Record<string, string>;
    expect(seen["x-forwarded-for"]).toBe("127.0.0.1");
    expect(seen["x-forwarded-proto"]).toBe("http");
    expect(seen["x-forwarded-host"]).toBe(`${name}.localhost`);
    expect(seen.forwarded).toBe(`for=127.0.0.1;host=${name}.localhost;proto=http`);
    if (proxyRequest) expect(seen["k-proxy-request"]).toBe(proxyRequest);
  });
});

describe("thaw up gateway behind a trusted proxy", () => {
  let stack: Stack;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    ({ stack, dispose } = await stackFrom(echoConfig(["trustedProxies: [127.0.0.0/8]"])));
  });
  afterAll(() => dispose?.());

  it("appends the peer to a trusted proxy's X-Forwarded-For and keeps its proto and host", async () => {
    const r = await request(stack.url, {
      headers: { ...host, "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" },
    });
    const seen = JSON.parse(r.body).headers as Record<string, string>;
    expect(seen["x-forwarded-for"]).toBe("203.0.113.9, 127.0.0.1");
    expect(seen["x-forwarded-proto"]).toBe("https");
    expect(seen.forwarded).toBe("for=203.0.113.9;host=echo.localhost;proto=https, for=127.0.0.1");
  });
});
