import { countApp, h2Request, idleSessionScenario, rapidResetScenario } from "@thaw/bench-kit/h2-abuse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, type Child, runBin } from "./helpers.js";

// The real bin in front of an app that counts what reaches it. Rapid reset (CVE-2023-44487): streams the
// client reset with their HEADERS never reach the app, and a reset flood gets GOAWAY ENHANCE_YOUR_CALM while
// another client is served. An h2c connection that opens no stream is closed at the head timeout (as a
// connection that sends no request), one idle between streams stays open (as a kept-alive HTTP/1 one:
// Knative sets no idle timeout).
const HEADERS_MS = 3000;
let qp: Child;
let app: Awaited<ReturnType<typeof countApp>>;

beforeAll(async () => {
  app = await countApp();
  qp = await runBin(
    baseEnv(app.port, { THAW_HEADERS_TIMEOUT_MS: String(HEADERS_MS), THAW_USER_PORT_NAME: "h2c" }),
  );
}, 30_000);
afterAll(async () => {
  qp?.proc.kill("SIGKILL");
  await app?.close();
});

describe("queue-proxy: HTTP/2 rapid reset and idle sessions (the real bin)", () => {
  it("forwards no reset stream and answers a reset flood with GOAWAY ENHANCE_YOUR_CALM", async () => {
    const r = await rapidResetScenario(qp.ports.serving, {
      label: "queue-proxy",
      authority: "app.local",
      reached: () => app.count(),
    });
    expect(r.problems).toEqual([]);
  }, 90_000);

  it("closes a preface-only connection at the head timeout and keeps a session idle between streams", async () => {
    const r = await idleSessionScenario(qp.ports.serving, {
      label: "queue-proxy",
      limitMs: HEADERS_MS,
      authority: "app.local",
      idleAfterStream: "open",
    });
    expect(r.problems).toEqual([]);
  }, 60_000);
});

describe("queue-proxy: the app's protocol follows its port name (Knative's h2c)", () => {
  it("an HTTP/2 client reaches an HTTP/1-only app over HTTP/1.1 when the port is not named h2c", async () => {
    const plain = await countApp({ http1Only: true });
    const child = await runBin(baseEnv(plain.port));
    try {
      const r = await h2Request(child.ports.serving, {
        ":method": "GET",
        ":path": "/hello",
        ":authority": "app.local",
      });
      expect(r).toEqual({ status: 200, body: "ok 1.1\n" });
    } finally {
      child.proc.kill("SIGKILL");
      await plain.close();
    }
  }, 30_000);
});
