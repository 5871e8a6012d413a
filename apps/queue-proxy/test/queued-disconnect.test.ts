import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { baseEnv, type Child, get, runBin, startBackend, until } from "./helpers.js";

// The real bin (containerConcurrency 1, so its breaker queues 10): clients that disconnect while their
// request waits in the breaker queue give their place back, and the app never sees their requests.
const children: Child[] = [];
const backends: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
  for (const b of backends.splice(0)) await b.close();
});

/** kn_serving_queue_depth from the bin's Prometheus port. */
async function depth(child: Child): Promise<number> {
  const text = (await get(`http://127.0.0.1:${child.ports.userMetrics}/metrics`)).body;
  return Number(/^kn_serving_queue_depth(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

/** Opens a connection and sends one request head; the socket is returned unread. */
async function rawRequest(port: number, path: string): Promise<net.Socket> {
  const s = net.connect(port, "127.0.0.1");
  await new Promise<void>((r) => s.once("connect", () => r()));
  s.on("error", () => {});
  s.write(`GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`);
  return s;
}

describe("queue-proxy: a client that disconnects while queued (the real bin)", () => {
  it("frees its place: the next request gets the slot, the app never sees the gone ones, depth back to 0", async () => {
    const backend = await startBackend();
    backends.push(backend);
    const qp = await runBin(baseEnv(backend.port, { CONTAINER_CONCURRENCY: "1" }));
    children.push(qp);
    const url = `http://127.0.0.1:${qp.ports.serving}`;
    const busy = get(`${url}/busy?sleep=1500`);
    await until(() => backend.seen.some((s) => s.url.startsWith("/busy")), 10_000);
    // 9 more fill the queue (10 = 10 × CC, the busy one included); each would hold the app for 20 s.
    const gone = await Promise.all(
      Array.from({ length: 9 }, (_, i) => rawRequest(qp.ports.serving, `/gone${i}?sleep=20000`)),
    );
    await until(async () => (await depth(qp)) === 10, 10_000);
    for (const s of gone) s.destroy();
    await until(async () => (await depth(qp)) === 1, 10_000);
    // Had the gone ones kept their places, this one would be refused (queue full) or wait 9 × 20 s.
    const t0 = performance.now();
    const next = await get(`${url}/next`);
    const waitedMs = performance.now() - t0;
    expect((await busy).status).toBe(200);
    expect(next.status).toBe(200);
    expect(waitedMs).toBeLessThan(15_000);
    expect(backend.seen.map((s) => s.url).filter((u) => u.startsWith("/gone"))).toEqual([]);
    await until(async () => (await depth(qp)) === 0, 10_000);
    process.stderr.write(
      `queued disconnect: next request served ${Math.round(waitedMs)} ms after the 9 left\n`,
    );
  }, 60_000);

  it("300 that leave at once while queued never reach the app, and keep no slot", async () => {
    const app = await latchedApp();
    // containerConcurrency 30: 30 run, 300 (10 × CC) wait in the breaker.
    const qp = await runBin(baseEnv(app.port, { CONTAINER_CONCURRENCY: "30" }));
    children.push(qp);
    const url = `http://127.0.0.1:${qp.ports.serving}`;
    const busy = Array.from({ length: 30 }, (_, i) => get(`${url}/busy${i}`));
    await until(() => app.held.length === 30, 10_000);
    const gone: net.Socket[] = [];
    for (let i = 0; i < 300; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) => rawRequest(qp.ports.serving, `/gone${i + j}`));
      gone.push(...(await Promise.all(batch)));
    }
    await until(async () => (await depth(qp)) === 330, 10_000);
    // They all leave, and at once the app frees every slot: the grants race the closes.
    for (const s of gone) s.destroy();
    app.release();
    expect((await Promise.all(busy)).map((r) => r.status)).toEqual(Array(30).fill(200));
    const t0 = performance.now();
    const next = await get(`${url}/next`);
    const reached = app.seen.filter((u) => u.startsWith("/gone")).length;
    process.stderr.write(`queued and gone (queue-proxy): ${reached} of 300 reached the app\n`);
    expect(next.status).toBe(200);
    expect(reached).toBe(0);
    expect(performance.now() - t0).toBeLessThan(5_000);
    await until(async () => (await depth(qp)) === 0, 10_000);
  }, 60_000);
});

/** An app that holds `/busy*` requests until `release()` and answers the rest at once, recording paths. */
async function latchedApp() {
  const seen: string[] = [];
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? "");
    if (req.url?.startsWith("/busy")) held.push(res);
    else res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  backends.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    held,
    release: () => {
      for (const r of held.splice(0)) r.end("done");
    },
  };
}
