import { slowClientScenario } from "@thaw/bench-kit/slow-clients";
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
    const r = await slowClientScenario(port, {
      label: "queue-proxy",
      headersMs: HEADERS_MS,
      idle: "open",
      normal: async (i) => {
        expect((await get(`http://127.0.0.1:${port}/normal${i}`)).status).toBe(200);
      },
    });
    expect(r.problems).toEqual([]);
    expect(backend.seen.filter((s) => s.url.startsWith("/normal"))).toHaveLength(r.normal);
  }, 60_000);
});
