import { idleAfterRequest, silentSocket, slowloris } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HookService, startIngressHook } from "../src/node/service.js";
import { httpGet } from "./support/http-get.js";

// The hook service with headersTimeoutMs 1500: slowloris heads get 408 and are closed at the limit, silent
// connections are closed at it, idle keep-alives after 1.5 s (the smaller of the limit and 5 s), while a
// normal caller is answered meanwhile.
const HEADERS_MS = 1500;
let hook: HookService;

beforeAll(async () => {
  hook = await startIngressHook({
    port: 0,
    activatorUrl: "http://127.0.0.1:9",
    services: [],
    watch: false,
    headersTimeoutMs: HEADERS_MS,
  });
});
afterAll(async () => {
  await hook?.close();
});

describe("hook service: slow and idle clients", () => {
  it("closes slowloris, silent and idle sockets at the head timeout and answers others meanwhile", async () => {
    const port = hook.port;
    const slow = Array.from({ length: 5 }, () => slowloris(port, { byteIntervalMs: 200, maxMs: 15_000 }));
    const silent = Array.from({ length: 5 }, () => silentSocket(port, { maxMs: 15_000 }));
    const idle = idleAfterRequest(port, { path: "/healthz", maxMs: 15_000 });
    const latencies: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < 5000 && performance.now() - t0 < HEADERS_MS * 2; i++) {
      const s = performance.now();
      expect((await httpGet(port, "a", "/healthz")).status).toBe(200);
      latencies.push(performance.now() - s);
    }
    const slowR = await Promise.all(slow);
    const silentR = await Promise.all(silent);
    const idleR = await idle;
    const worst = Math.round(Math.max(...latencies));
    process.stderr.write(
      `hook slow clients: slowloris closed after ${slowR.map((r) => r.closedAfterMs).join("/")} ms, ` +
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
