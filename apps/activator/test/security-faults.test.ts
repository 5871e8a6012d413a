import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { defaultRevisionConfig } from "../src/node/config.js";
import { type RunningActivator, startActivator } from "../src/node/server.js";
import { testActivatorConfig } from "./activator-config.js";
import { type Backend, startBackend } from "./backends.js";

const KEY = { namespace: "default", name: "hello-00001" };
const REV = { "knative-serving-namespace": KEY.namespace, "knative-serving-revision": KEY.name };
const TOKEN = "activator-test-token-0123";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function activator(endpoints: string[], token?: string): Promise<RunningActivator> {
  const a = await startActivator(
    testActivatorConfig([{ ...KEY, ...defaultRevisionConfig, endpoints }], { token }),
  );
  cleanup.push(() => a.close());
  return a;
}

async function backend(...args: Parameters<typeof startBackend>): Promise<Backend> {
  const b = await startBackend(...args);
  cleanup.push(() => b.close());
  return b;
}

/** A server that counts every connection made to it (a request's header must never lead here). */
async function decoy(): Promise<{ addr: string; connections: () => number }> {
  let n = 0;
  const s = createServer((_req, res) => res.end("decoy"));
  s.on("connection", () => n++);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  cleanup.push(() => new Promise<void>((r) => s.close(() => r())));
  return { addr: `127.0.0.1:${(s.address() as AddressInfo).port}`, connections: () => n };
}

describe("the activator forwards only to addresses from its endpoint discovery", () => {
  it("ignores every request header that names another address (plain requests and upgrades)", async () => {
    const pod = await backend();
    const trap = await decoy();
    const a = await activator([pod.addr]);
    const naming = {
      "x-thaw-upstream": trap.addr,
      "k-original-host": trap.addr,
      "x-forwarded-host": trap.addr,
      forwarded: `host=${trap.addr}`,
      "x-envoy-original-dst-host": trap.addr,
      "k-passthrough-lb": "true",
    };
    for (const method of ["GET", "POST"]) {
      const r = await fetch(`http://127.0.0.1:${a.port}/x`, {
        method,
        headers: { ...REV, ...naming },
        ...(method === "POST" ? { body: "b" } : {}),
      });
      expect(r.status).toBe(200);
      expect(await r.text()).toContain(`${method} /x`);
    }
    // An upgrade is spliced at the socket level: it too goes to the discovered pod, which refuses it.
    const ws = new WebSocket(`ws://127.0.0.1:${a.port}/ws`, { headers: { ...REV, ...naming } });
    await new Promise<void>((resolve) => {
      ws.on("error", () => resolve());
      ws.on("unexpected-response", () => resolve());
      ws.on("open", () => resolve());
    });
    ws.terminate();
    expect(pod.seen.map((s) => s.url)).toEqual(["/x", "/x", "/ws"]);
    expect(trap.connections()).toBe(0);
  });
});

describe("a pod whose app refused the connection (queue-proxy 502 + X-Thaw-App-Unreached)", () => {
  it("is skipped: every request goes to another pod whatever its method, and the client never sees the marker", async () => {
    const dead = await backend((_req, res) => {
      res.writeHead(502, { "x-thaw-app-unreached": "1", "content-type": "text/plain" });
      res.end("dial tcp 127.0.0.1:1: connect: connection refused\n");
    });
    const live = await backend();
    const a = await activator([dead.addr, live.addr]);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`http://127.0.0.1:${a.port}/r${i}`, {
          method: i % 2 === 0 ? "POST" : "GET",
          headers: REV,
          ...(i % 2 === 0 ? { body: `body${i}` } : {}),
        }).then(async (r) => ({
          status: r.status,
          marker: r.headers.get("x-thaw-app-unreached"),
          body: await r.text(),
        })),
      ),
    );
    expect(replies.filter((r) => r.status !== 200)).toEqual([]);
    expect(replies.filter((r) => r.marker !== null)).toEqual([]);
    expect(replies[0]?.body).toBe("POST /r0 body0");
    expect(live.seen).toHaveLength(20);
  });

  it("answers the 502 (without the marker) when a streamed body already went to that pod", async () => {
    const dead = await backend((_req, res) => {
      res.writeHead(502, { "x-thaw-app-unreached": "1" });
      res.end("refused\n");
    });
    const a = await activator([dead.addr]);
    // A body above the replay cap streams once: it cannot be sent again.
    const big = "x".repeat(defaultRevisionConfig.bodyBufferCap + 1);
    const r = await fetch(`http://127.0.0.1:${a.port}/big`, { method: "POST", headers: REV, body: big });
    expect(r.status).toBe(502);
    expect(r.headers.get("x-thaw-app-unreached")).toBeNull();
  });
});

describe("internal endpoints behind the token", () => {
  it.each([
    ["POST", "/v1/activate"],
    ["GET", "/v1/watch"],
    ["GET", "/v1/status"],
    ["GET", "/metrics"],
  ])("%s %s: 401 without the token, answered with it", async (method, path) => {
    const pod = await backend();
    const a = await activator([pod.addr], TOKEN);
    const body = method === "POST" ? JSON.stringify({ ...KEY, timeoutMs: 2000 }) : undefined;
    const denied = await fetch(`http://127.0.0.1:${a.port}${path}`, { method, ...(body ? { body } : {}) });
    expect(denied.status).toBe(401);
    const ac = new AbortController();
    const ok = await fetch(`http://127.0.0.1:${a.port}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: ac.signal,
      ...(body ? { body } : {}),
    });
    expect(ok.status).toBe(200);
    ac.abort();
  });
});
