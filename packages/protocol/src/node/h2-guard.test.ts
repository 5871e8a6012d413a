import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { guardH2Server } from "./h2-guard.js";

const servers: { server: http2.Http2Server; destroy(): void }[] = [];
afterEach(async () => {
  for (const { server, destroy } of servers.splice(0)) {
    destroy();
    await new Promise((r) => server.close(r));
  }
});

/** A guarded server whose streams wait (as for a pod) and are never answered. */
async function guarded(idleMs: number, maxResets = 100): Promise<{ url: string; streams: () => number }> {
  const server = http2.createServer();
  const sessions = guardH2Server(server, { idleMs, maxResets });
  servers.push({ server, destroy: () => sessions.destroy() });
  let streams = 0;
  server.on("stream", (stream) => {
    streams++;
    stream.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, streams: () => streams };
}

/** Resolves with the GOAWAY code (null: none) and ms until the session closed. */
function watch(session: http2.ClientHttp2Session): Promise<{ code: number | null; ms: number }> {
  const t0 = performance.now();
  let code: number | null = null;
  session.on("goaway", (c) => (code ??= c));
  session.on("error", () => {});
  return new Promise((r) => session.once("close", () => r({ code, ms: performance.now() - t0 })));
}

describe("guardH2Server", () => {
  it("closes a session without streams at the idle limit, with GOAWAY NO_ERROR", async () => {
    const { url } = await guarded(200);
    const r = await watch(http2.connect(url));
    expect(r.code).toBe(http2.constants.NGHTTP2_NO_ERROR);
    expect(r.ms).toBeGreaterThanOrEqual(150);
    expect(r.ms).toBeLessThan(5000);
  });

  it("sends GOAWAY ENHANCE_YOUR_CALM past the reset bound", async () => {
    const { url } = await guarded(0, 10);
    const session = http2.connect(url);
    const closed = watch(session);
    await new Promise((r) => session.once("remoteSettings", r));
    for (let i = 0; i < 50 && !session.closed && !session.destroyed; i++) {
      const s = session.request({ ":path": `/r${i}` });
      s.on("error", () => {});
      s.close(http2.constants.NGHTTP2_CANCEL);
    }
    const r = await closed;
    expect(r.code).toBe(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
  });
});
