import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { ConcurrencyReporter } from "@thaw/activation";
import { systemClock } from "@thaw/clock";
import { afterAll, describe, expect, it } from "vitest";
import { LocalCoordinator } from "../src/local-coordinator.js";
import { defaultRevisionConfig } from "../src/node/config.js";
import { createFastPath } from "../src/node/fast-path.js";
import { createH1Forwarder } from "../src/node/h1-forwarder.js";
import { StaticDirectory, StaticEndpointSource } from "../src/static-sources.js";
import { Telemetry } from "../src/telemetry.js";
import { startBackend } from "./backends.js";

// Issue 30: a request held for a slot on the Node path is forwarded once the I/O batch that granted it has
// run, one loop turn on, its client checked on its socket (a gone one is dropped: node-queued.test.ts, 300 at
// once), not after the three turns the response's close would take to tell. The grant here is a release
// made by the test itself, so the turns are counted from it.
const KEY = { namespace: "default", name: "turns-00001" };
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe("the Node path's held request", () => {
  it("is forwarded one loop turn after its slot is granted", async () => {
    const pod = await startBackend();
    cleanup.push(() => pod.close());
    const directory = new StaticDirectory();
    const config = { ...defaultRevisionConfig, containerConcurrency: 1 };
    directory.set(KEY, config);
    const endpoints = new StaticEndpointSource();
    endpoints.set(KEY, [pod.addr]);
    const coordinator = new LocalCoordinator({
      endpoints,
      clock: systemClock,
      fetch: (input, init) => fetch(input as string, init as RequestInit),
    });
    cleanup.push(() => coordinator.close());
    const h1 = createH1Forwarder();
    cleanup.push(() => h1.close());
    // The real client, with its dispatches counted.
    let dispatched = 0;
    const client = Object.create(h1.client) as typeof h1.client;
    client.dispatch = (dest, req, sink) => {
      dispatched++;
      h1.client.dispatch(dest, req, sink);
    };
    const fast = createFastPath(
      {
        revisions: directory,
        coordinator,
        forward: h1.forward,
        clock: systemClock,
        reporter: new ConcurrencyReporter({ podName: "test", clock: systemClock, send: () => {} }),
      },
      client,
      () => {
        throw new Error("the request left the Node path");
      },
      new Telemetry(),
    );
    const server = createServer((req, res) => {
      if (!fast(req, res)) res.writeHead(500).end("not the fast path");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    cleanup.push(() => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    });
    // The pod is ready and its one slot taken by the test.
    const gate = coordinator.gate(KEY, config);
    for (let i = 0; i < 200 && gate.readyEndpoints().length === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    const busy = gate.tryAcquire?.();
    expect(busy).toBeDefined();
    const answer = new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: (server.address() as AddressInfo).port,
          path: "/held",
          headers: { "knative-serving-namespace": KEY.namespace, "knative-serving-revision": KEY.name },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    for (let i = 0; i < 200 && coordinator.queueDepth(KEY) === 0; i++)
      await new Promise((r) => setTimeout(r, 25));
    expect(coordinator.queueDepth(KEY)).toBe(1);
    expect(dispatched).toBe(0);
    busy?.release(); // grants the held request's slot, here and now
    const afterTwoTurns = await new Promise<number>((r) =>
      setImmediate(() => setImmediate(() => r(dispatched))),
    );
    expect(afterTwoTurns).toBe(1);
    expect(await answer).toBe(200);
  }, 30_000);
});
