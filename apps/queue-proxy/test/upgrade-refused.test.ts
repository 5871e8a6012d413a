/**
 * An upgrade the app does not accept leaves the connection HTTP (issue 16): the next request on it is
 * parsed, filtered and counted like any other, and the upgrade request's own body keeps its framing.
 */
import { sendRaw, startRecorder } from "@thaw/h1-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { get, startInProcess } from "./helpers.js";

let app: Awaited<ReturnType<typeof startRecorder>>;
let qp: Awaited<ReturnType<typeof startInProcess>>;

beforeAll(async () => {
  app = await startRecorder();
  qp = await startInProcess(app.port, { CONTAINER_CONCURRENCY: "1" });
});
afterAll(async () => {
  await qp?.close();
  await app?.close();
});

/** Requests the user-metrics histogram counted with status 200. */
async function counted(): Promise<number> {
  const text = (await get(`http://127.0.0.1:${qp.ports.userMetrics}/metrics`)).body;
  let n = 0;
  for (const line of text.split("\n")) {
    if (line.includes("_count{") && line.includes('http_response_status_code="200"'))
      n += Number(line.split(" ")[1]);
  }
  return n;
}

describe("an upgrade answered without 101", () => {
  it("relays the answer and parses the pipelined request after it as a request of its own", async () => {
    app.reset();
    const before = await counted();
    const upgrade =
      "POST /ws HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    const after = "GET /after HTTP/1.1\r\nHost: a\r\nConnection: x-hop\r\nX-Hop: 1\r\nX-Keep: 2\r\n\r\n";
    const c = await sendRaw(qp.ports.serving, Buffer.from(upgrade + after, "latin1"));
    expect(await c.until(() => c.answers.length === 2, 5000)).toBe(true);
    c.destroy();
    expect(c.answers.map((a) => a.status)).toEqual([200, 200]);
    const seen = app.messages.map((m) => ({
      target: m.target,
      body: m.body,
      fields: m.headers.map(([n]) => n.toLowerCase()).sort(),
    }));
    expect(seen).toEqual([
      // The body kept its chunked framing (it did not become further requests).
      { target: "/ws", body: "hello", fields: ["connection", "host", "transfer-encoding", "upgrade"] },
      // Hop-by-hop fields (and the one Connection names) removed, as on any request.
      { target: "/after", body: "", fields: ["host", "x-keep"] },
    ]);
    // It went through the exchange path: counted in the request metrics (the upgrade itself is not).
    expect((await counted()) - before).toBe(1);
  });
});
