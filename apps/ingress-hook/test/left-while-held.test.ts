import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { getRequestListener } from "@hono/node-server";
import { systemClock } from "@thaw/clock";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { IngressHook } from "../src/decision/hook.js";
import { hostTableResolver } from "../src/decision/resolvers.js";
import { type ThawIngressVariables, thawIngress } from "../src/middleware.js";
import { FakeActivatorClient } from "../src/testing/fake-activator-client.js";

// Issue 26: a request whose client left while it was held must not be passed on. Here the `thawIngress`
// middleware (Node, a real loopback server; the edge runs the same code) holds requests for a pod slot
// (no activator upstream, containerConcurrency 30): 30 run at the origin, 300 wait; then the 300 clients
// leave and, in the same turn, the 30 running requests end, so 30 slots are granted before the gateway has
// read any of the closes. (The cold hold's case, through `thaw up`'s gateway: apps/cli/test/held-disconnect.test.ts.)
const CC = 30;
const GONE = 300;
const HOST = "hello.localhost";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The middleware on a loopback server in front of an origin that holds `/busy*` until `finishBusy()`. */
async function gateway() {
  const activation = new FakeActivatorClient();
  const hook = new IngressHook({
    resolvers: [hostTableResolver([{ name: "hello", namespace: "default", hosts: [HOST] }])],
    activator: activation,
    clock: systemClock,
    random: Math.random,
    containerConcurrencyFor: () => CC,
    maxQueue: GONE,
    // The revision stays warm for the whole test (no watch stream feeds the cache here).
    warmTtlMs: 600_000,
  });
  cleanup.push(() => hook.close());
  const origin: string[] = [];
  let finish = () => {};
  const busy = new Promise<void>((r) => {
    finish = r;
  });
  const app = new Hono<{ Variables: ThawIngressVariables }>();
  app.use("*", thawIngress({ hook }));
  app.all("*", async (c) => {
    origin.push(c.req.path);
    if (c.req.path.startsWith("/busy")) await busy;
    return c.text("ok");
  });
  const listener = getRequestListener(app.fetch);
  const counts = { arrived: 0 };
  // The middleware queues a request in the same turn it arrives (no await before the slot's queue).
  const server = http.createServer((req, res) => {
    counts.arrived++;
    void listener(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return {
    port: (server.address() as AddressInfo).port,
    activation,
    origin,
    counts,
    finishBusy: () => finish(),
  };
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, agent: false, headers: { host: HOST } },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Opens a connection and sends one request head; the socket is returned unread. */
async function rawRequest(port: number, path: string): Promise<net.Socket> {
  const s = net.connect(port, "127.0.0.1");
  await new Promise<void>((r) => s.once("connect", () => r()));
  s.on("error", () => {});
  s.write(`GET ${path} HTTP/1.1\r\nHost: ${HOST}\r\n\r\n`);
  return s;
}

/** Polls `ok` every 20 ms until it holds (bounded: 10 s). */
async function until(ok: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("thawIngress: clients that leave while held for a pod slot", () => {
  it("300 gone at once as 30 slots free: none reaches the origin, and a request after them is served", async () => {
    const { port, activation, origin, counts, finishBusy } = await gateway();
    // Warm the revision: the first request is held cold until the activation says ready.
    const first = get(port, "/first");
    await until(() => activation.calls.length === 1, "the activation");
    activation.answer({ kind: "ready", endpoints: ["127.0.0.1:9"], coldStart: true });
    expect((await first).status).toBe(200);
    const busy = Array.from({ length: CC }, (_, i) => get(port, `/busy${i}`));
    await until(() => origin.filter((p) => p.startsWith("/busy")).length === CC, "30 at the origin");
    const gone: net.Socket[] = [];
    for (let i = 0; i < GONE; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) => rawRequest(port, `/gone${i + j}`));
      gone.push(...(await Promise.all(batch)));
    }
    await until(() => counts.arrived === 1 + CC + GONE, "300 waiting for a slot");
    // All 300 wait: the queue (maxQueue 300) is full, and the next one is refused.
    expect((await get(port, "/probe")).status).toBe(503);
    for (const s of gone) s.destroy();
    finishBusy();
    expect((await Promise.all(busy)).map((r) => r.status)).toEqual(Array(CC).fill(200));
    const t0 = Date.now();
    const next = await get(port, "/next");
    const reached = origin.filter((p) => p.startsWith("/gone")).length;
    process.stderr.write(
      `held for a slot and gone (thawIngress): ${reached} of ${GONE} reached the origin\n`,
    );
    expect(next.status).toBe(200);
    expect(reached).toBe(0);
    // No slot kept by a gone one: the request after them is served at once.
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 60_000);
});
