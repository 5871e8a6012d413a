/**
 * Issue 26: clients that left while their request was held for a cold start still reached the app through
 * `thaw up`'s gateway (52 of 300 gone at once). The hold (the hook's activation, in the gateway's `thawIngress`
 * and in its forward-auth service) ends for every held request at once, inside the I/O that ended it, and
 * the disconnects may wait behind it in the same batch. Here they are made to: the 300 clients close their
 * sockets, and in the same turn the activation answers "ready". The gateway is the real one on a real
 * loopback server; its activation is answered by the test, and the activator behind it counts what reaches it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { getRequestListener } from "@hono/node-server";
import { systemClock } from "@thaw/clock";
import { forwardAuthApp, hostTableResolver, IngressHook } from "@thaw/ingress-hook";
import { nodeConnectionEnded } from "@thaw/ingress-hook/node";
import { FakeActivatorClient } from "@thaw/ingress-hook/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ACTIVATOR_UPSTREAM, createGateway } from "../src/gateway.js";
import { until } from "./support/up-process.js";

const GONE = 300;
const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The gateway on a loopback port, its hook cold, with what passed its hold counted. */
async function gateway() {
  const activation = new FakeActivatorClient();
  const hook = new IngressHook({
    resolvers: [hostTableResolver([{ name: "echo", namespace: "default", hosts: ["echo.localhost"] }])],
    activator: activation,
    clock: systemClock,
    random: Math.random,
    activatorUpstream: ACTIVATOR_UPSTREAM,
  });
  const auth = forwardAuthApp(hook, { connectionEnded: nodeConnectionEnded });
  const counts = { arrived: 0, reachedActivator: 0, allowedByAuth: 0 };
  const app = createGateway({
    hook,
    activator: {
      fetch: () => {
        counts.reachedActivator++;
        return new Response("ok");
      },
    },
    forward: () => Promise.reject(new Error("no direct forward in this test")),
    revisions: () => [],
    forwardAuth: {
      fetch: async (req, env) => {
        const res = await auth.fetch(req, env);
        if (res.status === 200) counts.allowedByAuth++;
        return res;
      },
    },
  });
  const listener = getRequestListener(app.fetch);
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
  return { port: (server.address() as AddressInfo).port, activation, counts };
}

/** Opens a connection and sends one request head; the socket is returned unread. */
async function rawRequest(port: number, head: string): Promise<net.Socket> {
  const s = net.connect(port, "127.0.0.1");
  await new Promise<void>((r) => s.once("connect", () => r()));
  s.on("error", () => {});
  s.write(head);
  return s;
}

const PATHS = [
  {
    name: "the data path (thawIngress, then the activator)",
    head: (i: number) => `GET /gone${i} HTTP/1.1\r\nHost: echo.localhost\r\n\r\n`,
    next: { path: "/next", headers: { host: "echo.localhost" } },
    passed: (c: { reachedActivator: number }) => c.reachedActivator,
  },
  {
    name: "forward-auth (/_thaw/auth/traefik)",
    head: (i: number) =>
      `GET /_thaw/auth/traefik HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-Host: echo.localhost\r\nX-Forwarded-Uri: /gone${i}\r\n\r\n`,
    next: {
      path: "/_thaw/auth/traefik",
      headers: { host: "127.0.0.1", "x-forwarded-host": "echo.localhost", "x-forwarded-uri": "/next" },
    },
    passed: (c: { allowedByAuth: number }) => c.allowedByAuth,
  },
];

describe("thaw up's gateway: clients that leave while held for a cold start", () => {
  it.each(PATHS)(
    "300 gone at once as the revision turns ready: none passed on ($name)",
    async ({ head, next: n, passed }) => {
      const { port, activation, counts } = await gateway();
      const gone: net.Socket[] = [];
      for (let i = 0; i < GONE; i += 50) {
        const batch = Array.from({ length: 50 }, (_, j) => rawRequest(port, head(i + j)));
        gone.push(...(await Promise.all(batch)));
      }
      await until(() => counts.arrived === GONE && activation.calls.length === 1, 10_000, "300 held");
      // Every client leaves, and in the same turn the activation says ready: the hold ends before the
      // gateway has read any of the closes.
      for (const s of gone) s.destroy();
      expect(activation.answer({ kind: "ready", endpoints: ["127.0.0.1:9"], coldStart: true })).toBe(1);
      // A request after them is held no more (the revision is warm) and passes: the count is complete then.
      const next = await new Promise<number>((resolve, reject) => {
        const req = http.request({ host: "127.0.0.1", port, agent: false, ...n }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end();
      });
      const reached = passed(counts) - 1;
      process.stderr.write(`held and gone (gateway): ${reached} of ${GONE} passed on\n`);
      expect(next).toBe(200);
      expect(reached).toBe(0);
    },
    60_000,
  );

  // Issue 30: the gateway reads the client's socket itself, so a held request whose client stayed is passed
  // on once the I/O batch that ended the hold has run (one loop turn), not after the request's signal could
  // have told (three turns).
  it.each(PATHS)(
    "a client that stays is passed on one loop turn after the revision turns ready ($name)",
    async ({ head, passed }) => {
      const { port, activation, counts } = await gateway();
      const client = await rawRequest(port, head(0));
      cleanup.push(() => {
        client.destroy();
      });
      const answered = new Promise<string>((resolve) => client.once("data", (d) => resolve(String(d))));
      await until(() => counts.arrived === 1 && activation.calls.length === 1, 10_000, "held");
      expect(activation.answer({ kind: "ready", endpoints: ["127.0.0.1:9"], coldStart: true })).toBe(1);
      // Queued before anything the answer sets off: the second check phase from here.
      const afterTwoTurns = await new Promise<number>((resolve) =>
        setImmediate(() => setImmediate(() => resolve(passed(counts)))),
      );
      expect(afterTwoTurns).toBe(1);
      expect(await answered).toMatch(/^HTTP\/1\.1 200 /);
    },
    30_000,
  );
});
