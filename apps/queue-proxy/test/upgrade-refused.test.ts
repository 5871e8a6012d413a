/**
 * An upgrade the app does not accept leaves the connection HTTP (issue 16): the next request on it is
 * parsed, filtered and counted like any other, and the upgrade request's own body keeps its framing. On
 * the TLS port, whose socket Node's server hands over raw, the answer is relayed and the connection
 * closes: nothing the client sent after its request reaches the app (issue 26). The app is a recorder
 * that, like most servers, goes on reading HTTP after an upgrade it refused.
 */
import net, { type AddressInfo } from "node:net";
import tls from "node:tls";
import { sendRaw, startRecorder } from "@thaw/h1-diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { certsDir, writeCert } from "./certs.js";
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

describe("an upgrade answered without 101 on the TLS port", () => {
  let tlsQp: Awaited<ReturnType<typeof startInProcess>>;
  const certs = certsDir();
  beforeAll(async () => {
    writeCert(certs.dir);
    tlsQp = await startInProcess(app.port, { QUEUE_SERVING_TLS_PORT: "0", THAW_CERTS_DIR: certs.dir });
  });
  afterAll(async () => {
    await tlsQp?.close();
    certs.remove();
  });

  it.each([
    ["GET", ""],
    ["POST with a length", "Content-Length: 5\r\n\r\nhello"],
    ["POST chunked", "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"],
  ])(
    "%s: the answer is relayed, then the connection closes; the pipelined request never reaches the app",
    async (_, body) => {
      app.reset();
      const method = body === "" ? "GET" : "POST";
      const bytes =
        `${method} /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
        (body === "" ? "\r\n" : body) +
        "GET /smuggled HTTP/1.1\r\nHost: evil.example\r\nK-Proxy-Request: activator\r\n\r\n";
      const text = await new Promise<string>((resolve, reject) => {
        const socket = tls.connect(
          { host: "127.0.0.1", port: tlsQp.ports.servingTls, rejectUnauthorized: false },
          () => socket.write(bytes, "latin1"),
        );
        let out = "";
        socket.setEncoding("latin1");
        socket.on("data", (d: string) => {
          out += d;
        });
        socket.setTimeout(5000, () => {
          socket.destroy();
          resolve(`${out}(still open after 5 s)`);
        });
        socket.once("close", () => resolve(out));
        socket.once("error", reject);
      });
      expect(app.messages.map((m) => [m.target, m.body])).toEqual([["/ws", body === "" ? "" : "hello"]]);
      expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(text).toContain("connection: close");
      expect(text).not.toContain("still open");
    },
  );
});

describe("bytes a client sends before the 101 (TLS port)", () => {
  it("never reach the app: the tunnel is cut instead of carrying them", async () => {
    // An app that accepts every upgrade (101 once the head is in) and records what comes after it.
    const after: Buffer[] = [];
    const accepting = net.createServer((s) => {
      let head = "";
      s.on("data", (d: Buffer) => {
        if (head.includes("\r\n\r\n")) {
          after.push(d);
          return;
        }
        head += d.toString("latin1");
        const end = head.indexOf("\r\n\r\n");
        if (end < 0) return;
        if (head.length > end + 4) after.push(Buffer.from(head.slice(end + 4), "latin1"));
        // Answer late, so the client's early bytes are surely in before the 101.
        setTimeout(
          () =>
            s.write("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
          200,
        );
      });
      s.on("error", () => {});
    });
    await new Promise<void>((r) => accepting.listen(0, "127.0.0.1", r));
    const certs = certsDir();
    writeCert(certs.dir);
    const qp = await startInProcess((accepting.address() as AddressInfo).port, {
      QUEUE_SERVING_TLS_PORT: "0",
      THAW_CERTS_DIR: certs.dir,
    });
    try {
      const closed = await new Promise<boolean>((resolve, reject) => {
        const socket = tls.connect(
          { host: "127.0.0.1", port: qp.ports.servingTls, rejectUnauthorized: false },
          () =>
            socket.write(
              "GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n" +
                "GET /smuggled HTTP/1.1\r\nHost: evil.example\r\n\r\n",
            ),
        );
        socket.resume();
        socket.setTimeout(3000, () => {
          socket.destroy();
          resolve(false);
        });
        socket.once("close", () => resolve(true));
        socket.once("error", reject);
      });
      expect(Buffer.concat(after).toString("latin1")).toBe("");
      expect(closed, "the connection was cut").toBe(true);
    } finally {
      await qp.close();
      certs.remove();
      accepting.close();
    }
  });
});
