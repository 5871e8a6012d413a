import { idleAfterRequest, silentSocket, slowloris } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stack } from "../src/stack.js";
import { echoConfig, request, stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

// `thaw up`'s gateway with `headersTimeout: 3000ms` (its pod a real app + queue-proxy): slowloris heads get
// 408 and are closed at the limit, silent connections are closed at it, idle keep-alives after 3 s (the
// smaller of the limit and 5 s), while a normal client is proxied to the pod meanwhile.
const HEADERS_MS = 3000;
const host = { host: "echo.localhost" };
let stack: Stack;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ stack, dispose } = await stackFrom(
    echoConfig([`headersTimeout: ${HEADERS_MS}ms`], ["    autoscaling: { min-scale: 1, max-scale: 1 }"]),
  ));
  await until(
    async () => (await request(stack.url, { headers: host }).catch(() => ({ status: 0 }))).status === 200,
    30_000,
    "the pod to answer",
  );
}, 60_000);
afterAll(async () => {
  await dispose?.();
}, 60_000);

describe("thaw up gateway: slow and idle clients", () => {
  it("closes slowloris, silent and idle sockets at the head timeout and serves others meanwhile", async () => {
    const port = Number(new URL(stack.url).port);
    const slow = Array.from({ length: 5 }, () =>
      slowloris(port, { host: "echo.localhost", byteIntervalMs: 200, maxMs: 15_000 }),
    );
    const silent = Array.from({ length: 5 }, () => silentSocket(port, { maxMs: 15_000 }));
    const idle = idleAfterRequest(port, { host: "echo.localhost", maxMs: 15_000 });
    const latencies: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < 5000 && performance.now() - t0 < HEADERS_MS * 2; i++) {
      const s = performance.now();
      expect((await request(stack.url, { path: `/normal${i}`, headers: host })).status).toBe(200);
      latencies.push(performance.now() - s);
    }
    const slowR = await Promise.all(slow);
    const silentR = await Promise.all(silent);
    const idleR = await idle;
    const worst = Math.round(Math.max(...latencies));
    process.stderr.write(
      `gateway slow clients: slowloris closed after ${slowR.map((r) => r.closedAfterMs).join("/")} ms, ` +
        `silent after ${silentR.map((r) => r.closedAfterMs).join("/")} ms, idle keep-alive after ${idleR.closedAfterMs} ms; ` +
        `${latencies.length} normal requests, worst ${worst} ms\n`,
    );
    for (const r of [...slowR, ...silentR, idleR]) {
      expect(r.closedAfterMs).not.toBeNull();
      expect(r.closedAfterMs as number).toBeGreaterThanOrEqual(HEADERS_MS - 100);
      expect(r.closedAfterMs as number).toBeLessThan(HEADERS_MS + 8000);
    }
    for (const r of slowR) expect(r.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(worst).toBeLessThan(HEADERS_MS);
  }, 60_000);
});
