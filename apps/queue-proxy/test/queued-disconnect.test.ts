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
});
