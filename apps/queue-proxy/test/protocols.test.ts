import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { exerciseProtocols, PROTOCOL_APP, PROTOCOLS } from "@thaw/bench-kit/protocols";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcess, until } from "./helpers.js";

// The queue-proxy's serving port carries every protocol to its app: HTTP/1 echo, SSE, websocket (spliced
// after the app's 101), h2c (to the app over h2c), gRPC unary, server-streaming and bidi (a real
// @grpc/grpc-js client and server; its status travels in HTTP/2 trailers, which the proxy relays).
const ALL_OK = Object.fromEntries(PROTOCOLS.map((p) => [p, "ok"]));

let app: ChildProcess;

/** A port nothing listens on right now (the app binds it). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const { port } = s.address() as import("node:net").AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}
let qp: Awaited<ReturnType<typeof startInProcess>>;

beforeAll(async () => {
  const port = await freePort();
  app = spawn(process.execPath, [PROTOCOL_APP], {
    env: { ...process.env, PORT: String(port), STARTUP_DELAY_MS: "0" },
    stdio: "ignore",
  });
  // gRPC needs HTTP/2 to the app: its port is named h2c, as in Knative.
  qp = await startInProcess(port, { THAW_USER_PORT_NAME: "h2c" });
  await until(
    async () => (await fetch(`${qp.url}/echo`, { method: "POST", body: "x" }).catch(() => null))?.ok === true,
    15_000,
  );
}, 30_000);

afterAll(async () => {
  await qp?.close();
  app?.kill("SIGTERM");
});

describe("queue-proxy serving port: every protocol to a real app", () => {
  it("HTTP/1, SSE, websocket, h2c and gRPC (unary, server stream, bidi) round-trip in order", async () => {
    const got = await exerciseProtocols({ origin: qp.url, host: "proto.localhost" });
    expect(Object.fromEntries(Object.entries(got).map(([k, v]) => [k, v.result]))).toEqual(ALL_OK);
  }, 60_000);
});
