import { idleAfterRequest, silentSocket, slowloris } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, type Child, get, runBin, startBackend } from "./helpers.js";

// The real bin with THAW_HEADERS_TIMEOUT_MS=1500: a head trickled a byte at a time gets 408 and is closed at
// the limit, a connection that never sends a byte is closed at it too, and a kept-alive connection between
// requests stays open (Go's server in Knative has no idle timeout there). Meanwhile a normal client is served.
// 3 s like the gateway's: a normal request must finish inside it, and a loaded CI can stall one for over 1.5 s.
const HEADERS_MS = 3000;
let qp: Child;
let backend: Awaited<ReturnType<typeof startBackend>>;

beforeAll(async () => {
  backend = await startBackend();
  qp = await runBin(baseEnv(backend.port, { THAW_HEADERS_TIMEOUT_MS: String(HEADERS_MS) }));
}, 30_000);
afterAll(async () => {
  qp?.proc.kill("SIGKILL");
  await backend?.close();
});

describe("queue-proxy: slow and idle clients (the real bin)", () => {
  it("closes slowloris and silent sockets at the head timeout, keeps idle keep-alives, serves others meanwhile", async () => {
    const port = qp.ports.serving;
    const slow = Array.from({ length: 5 }, () => slowloris(port, { byteIntervalMs: 200, maxMs: 15_000 }));
    const silent = Array.from({ length: 5 }, () => silentSocket(port, { maxMs: 15_000 }));
    const idle = idleAfterRequest(port, { maxMs: HEADERS_MS * 3 });
    const latencies: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < 5000 && performance.now() - t0 < HEADERS_MS * 2; i++) {
      const s = performance.now();
      expect((await get(`http://127.0.0.1:${port}/normal${i}`)).status).toBe(200);
      latencies.push(performance.now() - s);
    }
    const slowR = await Promise.all(slow);
    const silentR = await Promise.all(silent);
    const idleR = await idle;
    const worst = Math.round(Math.max(...latencies));
    process.stderr.write(
      `queue-proxy slow clients: slowloris closed after ${slowR.map((r) => r.closedAfterMs).join("/")} ms, ` +
        `silent after ${silentR.map((r) => r.closedAfterMs).join("/")} ms, idle keep-alive ${idleR.closedAfterMs ?? "open"}; ` +
        `${latencies.length} normal requests, worst ${worst} ms\n`,
    );
    for (const r of slowR) {
      expect(r.closedAfterMs).not.toBeNull();
      // Not before the limit; the check runs every second at most, plus slack for a loaded machine.
      expect(r.closedAfterMs as number).toBeGreaterThanOrEqual(HEADERS_MS - 100);
      expect(r.closedAfterMs as number).toBeLessThan(HEADERS_MS + 8000);
      expect(r.received).toMatch(/^HTTP\/1\.1 408 /);
    }
    for (const r of silentR) {
      expect(r.closedAfterMs).not.toBeNull();
      expect(r.closedAfterMs as number).toBeGreaterThanOrEqual(HEADERS_MS - 100);
      expect(r.closedAfterMs as number).toBeLessThan(HEADERS_MS + 8000);
    }
    expect(idleR.closedAfterMs).toBeNull();
    expect(backend.seen.filter((s) => s.url.startsWith("/normal"))).toHaveLength(latencies.length);
    // Served throughout: no normal request waited on the slow ones (bound generous for a loaded box).
    expect(worst).toBeLessThan(HEADERS_MS);
  }, 60_000);
});
