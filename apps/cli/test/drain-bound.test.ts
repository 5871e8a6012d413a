/**
 * `thaw up` as a real child process stops on SIGTERM within its drain bound while long-lived connections are
 * open at its gateway: an h2c session without streams, an h2c session whose client reset 100 streams and
 * stays, the dashboard's event stream, and an accepted websocket. None of them ends by itself.
 */
import http from "node:http";
import http2 from "node:http2";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { GATEWAY_DRAIN_BOUND_MS } from "../src/gateway-drain.js";
import { echoService, untilAnswered } from "./support/stack-harness.js";
import { markedPids, startUp, until } from "./support/up-process.js";

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** An h2c session to the gateway, once its SETTINGS arrived. */
function h2Session(url: string): Promise<http2.ClientHttp2Session> {
  const s = http2.connect(url);
  s.on("error", () => {});
  cleanup.push(async () => void s.destroy());
  return new Promise((resolve) => s.once("remoteSettings", () => resolve(s)));
}

describe("thaw up drain bound (real processes)", () => {
  it("SIGTERM with an h2 session, a reset-flooded h2 session, an SSE stream and a websocket open exits within the bound", async () => {
    const run = await startUp("thaw-drain-bound", [
      "listen: 127.0.0.1:0",
      "services:",
      ...echoService(["    timeoutSeconds: 30", "    autoscaling: { min-scale: 1, max-scale: 1 }"]),
    ]);
    cleanup.push(run.dispose);
    const { up: u, marker } = run;
    await untilAnswered(u.url, { host: "echo.localhost" }, "a pod to answer");
    await h2Session(u.url);
    const resets = await h2Session(u.url);
    for (let i = 0; i < 100; i++) {
      const s = resets.request({ ":path": `/rr/${i}`, ":authority": "echo.localhost" });
      s.on("error", () => {});
      s.close(http2.constants.NGHTTP2_CANCEL);
    }
    const sse = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const req = http.get(`${u.url}/_thaw/api/stream`, { agent: false }, resolve);
      req.on("error", reject);
      cleanup.push(async () => void req.destroy());
    });
    expect(sse.statusCode).toBe(200);
    sse.on("data", () => {});
    sse.on("error", () => {});
    const ws = new WebSocket(`${u.url.replace("http", "ws")}/ws`, { headers: { host: "echo.localhost" } });
    ws.on("error", () => {});
    cleanup.push(async () => void ws.terminate());
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("unexpected-response", (_req, res) => reject(new Error(`websocket got ${res.statusCode}`)));
    });
    const t0 = Date.now();
    u.proc.kill("SIGTERM");
    // Bounded wait: the bound plus the pods' stop, and a margin for a loaded machine.
    const limit = GATEWAY_DRAIN_BOUND_MS + 10_000;
    await until(() => u.proc.exitCode !== null || u.proc.signalCode !== null, limit, "thaw up to exit");
    const took = Date.now() - t0;
    process.stderr.write(
      `THAW-FIGURES ${JSON.stringify({ test: "thaw up drain bound", boundMs: GATEWAY_DRAIN_BOUND_MS, exitedAfterMs: took, code: u.proc.exitCode })}\n`,
    );
    expect(u.proc.exitCode).toBe(0);
    expect(markedPids(marker)).toEqual([]);
  }, 90_000);
});
