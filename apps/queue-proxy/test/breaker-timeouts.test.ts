import http from "node:http";
import { decodeStat } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { get, startInProcess, until } from "./helpers.js";
import { sharedBackend } from "./shared-backend.js";

const backend = sharedBackend();

function slow(url: string, headers: Record<string, string> = {}) {
  return get(url, headers);
}

describe("breaker (containerConcurrency 1: 1 running + 10 waiting)", () => {
  it("admits CC + 10 x CC and answers the next with 503 pending request queue full", async () => {
    const qp = await startInProcess(backend.port, { CONTAINER_CONCURRENCY: "1" });
    try {
      const before = backend.seen.length;
      // The first holds the one slot long enough for the other ten to queue on a loaded machine.
      const held = Array.from({ length: 11 }, (_, i) =>
        slow(`${qp.url}/held?sleep=${i === 0 ? 2000 : 50}&i=${i}`),
      );
      await until(() => backend.seen.length - before === 1);
      // Let the other 10 reach the breaker's queue.
      await until(async () => {
        const m = await get(`http://127.0.0.1:${qp.ports.userMetrics}/metrics`);
        return /kn_serving_queue_depth\{[^}]*\} 11/.test(m.body);
      });
      const refused = await get(`${qp.url}/one-too-many`);
      expect(refused.status).toBe(503);
      expect(refused.body).toBe("pending request queue full\n");
      const results = await Promise.all(held);
      expect(results.every((r) => r.status === 200)).toBe(true);
    } finally {
      await qp.close();
    }
  });

  it("serves waiters in arrival order", async () => {
    const qp = await startInProcess(backend.port, { CONTAINER_CONCURRENCY: "1" });
    try {
      const before = backend.seen.length;
      // Long enough for six more requests to queue behind it on a loaded machine.
      const first = slow(`${qp.url}/order?sleep=2000&i=first`);
      await until(() => backend.seen.length - before === 1);
      const rest: Promise<unknown>[] = [];
      for (let i = 0; i < 6; i++) {
        rest.push(slow(`${qp.url}/order?i=${i}`));
        // Each one is queued before the next is sent.
        await until(async () => {
          const m = await get(`http://127.0.0.1:${qp.ports.userMetrics}/metrics`);
          return new RegExp(`kn_serving_queue_depth\\{[^}]*\\} ${i + 2}`).test(m.body);
        });
      }
      await Promise.all([first, ...rest]);
      const order = backend.seen.slice(before).map((s) => new URL(s.url, "http://x").searchParams.get("i"));
      expect(order).toEqual(["first", "0", "1", "2", "3", "4", "5"]);
    } finally {
      await qp.close();
    }
  });

  it("lets K-Kubelet-Probe requests bypass the breaker and the stats", async () => {
    const qp = await startInProcess(backend.port, { CONTAINER_CONCURRENCY: "1" });
    try {
      const before = backend.seen.length;
      const blocker = slow(`${qp.url}/block?sleep=400`);
      await until(() => backend.seen.length - before === 1);
      const probe = await get(`${qp.url}/bypass`, { "k-kubelet-probe": "1" });
      expect(probe.status).toBe(200);
      expect(backend.seen.length - before).toBe(2); // reached the app while the slot was taken
      await blocker;
    } finally {
      await qp.close();
    }
  });

  it("does not count K-Kubelet-Probe requests in the stats", async () => {
    const qp = await startInProcess(backend.port, { CONTAINER_CONCURRENCY: "1" });
    try {
      for (let i = 0; i < 5; i++)
        expect((await get(`${qp.url}/p`, { "k-kubelet-probe": "1" })).status).toBe(200);
      const counts: number[] = [];
      const end = Date.now() + 2200;
      while (Date.now() < end) {
        const body = new Uint8Array(
          await (await fetch(`http://127.0.0.1:${qp.ports.metrics}/metrics`)).arrayBuffer(),
        );
        const stat = decodeStat(body);
        if (stat.ok) counts.push(stat.value.requestCount + stat.value.averageConcurrentRequests);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(counts.length).toBeGreaterThan(5);
      expect(counts.every((c) => c === 0)).toBe(true);
    } finally {
      await qp.close();
    }
  });
});

describe("timeouts (c.4)", () => {
  const rows: {
    name: string;
    env: Record<string, string>;
    path: string;
    status: number;
    body: string | null;
  }[] = [
    {
      name: "total timeout: 504 request timeout",
      env: { REVISION_TIMEOUT_SECONDS: "1" },
      path: "/t?sleep=3000",
      status: 504,
      body: "request timeout",
    },
    {
      name: "response-start timeout fires before the total",
      env: { REVISION_TIMEOUT_SECONDS: "10", REVISION_RESPONSE_START_TIMEOUT_SECONDS: "1" },
      path: "/t?sleep=3000",
      status: 504,
      body: "request timeout",
    },
    {
      name: "idle timeout counts from the start while nothing was written",
      env: { REVISION_TIMEOUT_SECONDS: "10", REVISION_IDLE_TIMEOUT_SECONDS: "1" },
      path: "/t?sleep=3000",
      status: 504,
      body: "request timeout",
    },
    {
      name: "a response that starts in time is not cut by the response-start timer",
      env: { REVISION_TIMEOUT_SECONDS: "10", REVISION_RESPONSE_START_TIMEOUT_SECONDS: "1" },
      path: "/t?stream=30",
      status: 200,
      body: null,
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const qp = await startInProcess(backend.port, row.env);
      try {
        const t0 = Date.now();
        const res = await get(`${qp.url}${row.path}`);
        expect(res.status).toBe(row.status);
        if (row.body !== null) {
          expect(res.body).toBe(row.body);
          expect(Date.now() - t0).toBeLessThan(2500);
        } else expect(res.body.split("\n").length).toBe(31);
      } finally {
        await qp.close();
      }
    });
  }

  it("a timeout while waiting in the breaker queue is a 504 too", async () => {
    // The blocker streams for ~2 s, so the response-start timer never fires for it; the waiter behind it
    // has written nothing when its own timer fires.
    const qp = await startInProcess(backend.port, {
      CONTAINER_CONCURRENCY: "1",
      REVISION_TIMEOUT_SECONDS: "10",
      REVISION_RESPONSE_START_TIMEOUT_SECONDS: "1",
    });
    try {
      const before = backend.seen.length;
      const blocker = slow(`${qp.url}/block?stream=40`);
      await until(() => backend.seen.length - before === 1);
      const waiter = await get(`${qp.url}/waits`);
      expect(waiter.status).toBe(504);
      expect(waiter.body).toBe("request timeout");
      expect(backend.seen.length - before).toBe(1); // never reached the app
      expect((await blocker).status).toBe(200);
    } finally {
      await qp.close();
    }
  });

  it("the idle timer ends a stream that stalls after starting", async () => {
    const qp = await startInProcess(backend.port, { REVISION_IDLE_TIMEOUT_SECONDS: "1" });
    const srv = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write("first\n");
      // then nothing: the idle timer must end the response
    });
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const stall = await startInProcess((srv.address() as import("node:net").AddressInfo).port, {
      REVISION_IDLE_TIMEOUT_SECONDS: "1",
    });
    try {
      const res = await get(`${stall.url}/`);
      expect(res.status).toBe(200);
      expect(res.body).toBe("first\nrequest timeout");
    } finally {
      await stall.close();
      await qp.close();
      srv.closeAllConnections();
      srv.close();
    }
  });
});
