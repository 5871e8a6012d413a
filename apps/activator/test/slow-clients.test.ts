import http from "node:http";
import { slowClientScenario } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorBin, startActivatorBin } from "./activator-bin.js";
import { type Backend, startBackend } from "./backends.js";

// The real `thaw-activator` bin with --headers-timeout-ms 1500: a head trickled a byte at a time gets 408
// and is closed at the limit, a connection that never sends a byte and an idle keep-alive connection are
// closed too, while a normal client proxied to a pod meanwhile is served without delay.
// 3 s like the gateway's: a normal request must finish inside it, and a loaded CI can stall one for over 1.5 s.
const HEADERS_MS = 3000;
let activator: ActivatorBin | undefined;
let backend: Backend;
let port = 0;

beforeAll(async () => {
  backend = await startBackend();
  activator = await startActivatorBin(["--headers-timeout-ms", String(HEADERS_MS)], [backend.addr]);
  port = activator.port;
}, 30_000);
afterAll(async () => {
  activator?.child.kill("SIGKILL");
  await backend?.close();
});

/** One request through the activator to the `hello` revision, on a fresh connection. */
function proxied(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        agent: false,
        headers: { "knative-serving-namespace": "default", "knative-serving-revision": "hello" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("activator: slow and idle clients (the real bin)", () => {
  it("closes slowloris, silent and idle sockets at the head timeout and serves others meanwhile", async () => {
    const r = await slowClientScenario(port, {
      label: "activator",
      headersMs: HEADERS_MS,
      idlePath: "/metrics",
      normal: async (i) => {
        expect(await proxied(`/normal${i}`)).toBe(200);
      },
    });
    expect(r.problems).toEqual([]);
    expect(backend.seen.filter((s) => s.url.startsWith("/normal"))).toHaveLength(r.normal);
  }, 60_000);
});
