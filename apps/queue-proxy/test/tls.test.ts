import { readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import http2 from "node:http2";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import tls from "node:tls";
import { ManualClock } from "@thaw/clock/testing";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { type RunningQueueProxy, startQueueProxy } from "../src/queue-proxy.js";
import { certsDir, writeCert } from "./certs.js";
import { baseEnv, configFor, get, runBin, type Seen, startInProcess, until } from "./helpers.js";
import { sharedBackend } from "./shared-backend.js";

const backend = sharedBackend();
const dirs: { remove(): void }[] = [];
const running: RunningQueueProxy[] = [];
afterEach(async () => {
  for (const qp of running.splice(0)) await qp.close();
  for (const d of dirs.splice(0)) d.remove();
});

/** A temp certs dir with a fresh certificate in it. */
function mounted(): { dir: string; pem: Buffer; fingerprint: string } {
  const d = certsDir();
  dirs.push(d);
  return { dir: d.dir, ...writeCert(d.dir) };
}

async function tlsProxy(dir: string, extra: Record<string, string> = {}) {
  const qp = await startInProcess(backend.port, {
    QUEUE_SERVING_TLS_PORT: "0",
    THAW_CERTS_DIR: dir,
    THAW_USER_PORT_NAME: "h2c",
    ...extra,
  });
  running.push(qp);
  return qp;
}

type Answer = { status: number; body: string; alpn: string | false | null | undefined };

/** HTTPS over HTTP/1.1 (ALPN offers only http/1.1). */
function httpsGet(port: number, path: string, ca: Buffer, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const options: https.RequestOptions & tls.ConnectionOptions = {
      host: "127.0.0.1",
      port,
      path,
      ca,
      headers,
      agent: false,
      ALPNProtocols: ["http/1.1"],
    };
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          body: Buffer.concat(chunks).toString(),
          alpn: (res.socket as tls.TLSSocket).alpnProtocol,
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

/** HTTP/2 over TLS, negotiated by ALPN. */
function h2Get(port: number, path: string, ca: Buffer, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca });
    session.on("error", reject);
    const stream = session.request({ ":path": path, ...headers });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      status = Number(h[":status"]);
    });
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => {
      const alpn = session.alpnProtocol;
      session.close();
      resolve({ status, body: Buffer.concat(chunks).toString(), alpn });
    });
    stream.on("error", reject);
    stream.end();
  });
}

/** The SHA-256 fingerprint of the certificate the port serves (no verification: it may be a new one). */
function servedFingerprint(port: number, options: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: "127.0.0.1", port, rejectUnauthorized: false, ...options }, () => {
      const fp = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fp);
    });
    socket.on("error", reject);
  });
}

describe("TLS serving port (c.1)", () => {
  const absent: { name: string; files: string[] }[] = [
    { name: "no files", files: [] },
    { name: "only tls.crt", files: ["tls.crt"] },
    { name: "only tls.key", files: ["tls.key"] },
  ];
  for (const row of absent) {
    it(`is not started with ${row.name}`, async () => {
      const d = certsDir();
      dirs.push(d);
      for (const f of row.files) writeFileSync(join(d.dir, f), "x");
      const qp = await tlsProxy(d.dir);
      expect(qp.ports.servingTls).toBe(0);
      expect(qp.ports.serving).toBeGreaterThan(0);
    });
  }

  it("proxies HTTPS HTTP/1.1 and HTTP/2 (ALPN h2) requests to the app", async () => {
    const { dir, pem } = mounted();
    const qp = await tlsProxy(dir);
    expect(qp.ports.servingTls).toBeGreaterThan(0);
    const rows: { name: string; send: typeof httpsGet; alpn: string; upstream: string }[] = [
      { name: "h1", send: httpsGet, alpn: "http/1.1", upstream: "1.1" },
      { name: "h2", send: h2Get, alpn: "h2", upstream: "2.0" },
    ];
    for (const row of rows) {
      const res = await row.send(qp.ports.servingTls, `/over-tls-${row.name}?x=1`, pem, {
        "x-forwarded-for": "10.0.0.1",
      });
      expect(res.status, row.name).toBe(200);
      expect(res.alpn, row.name).toBe(row.alpn);
      const seen = JSON.parse(res.body) as Seen;
      expect(seen.url, row.name).toBe(`/over-tls-${row.name}?x=1`);
      expect(seen.httpVersion, row.name).toBe(row.upstream);
      // The same handler as the plain port: Forwarded synthesised from X-Forwarded-*.
      expect(seen.headers["forwarded"], row.name).toBe("for=10.0.0.1");
    }
  });

  it("answers the queue probe itself on both protocols", async () => {
    const { dir, pem } = mounted();
    const qp = await tlsProxy(dir);
    const before = backend.seen.length;
    const probe = { "user-agent": "kube-probe/1.30", "k-network-probe": "queue" };
    for (const send of [httpsGet, h2Get]) {
      const res = await send(qp.ports.servingTls, "/", pem, probe);
      expect(res.status).toBe(200);
      expect(res.body).toBe("queue");
    }
    expect(backend.seen.length).toBe(before);
  });

  it("passes a websocket upgrade through over TLS", async () => {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    wss.on("connection", (ws) => ws.on("message", (m) => ws.send(`echo:${m}`)));
    await new Promise<void>((r) => wss.once("listening", () => r()));
    const { dir, pem } = mounted();
    const qp = await startInProcess((wss.address() as AddressInfo).port, {
      QUEUE_SERVING_TLS_PORT: "0",
      THAW_CERTS_DIR: dir,
    });
    running.push(qp);
    try {
      const ws = new WebSocket(`wss://127.0.0.1:${qp.ports.servingTls}/`, { ca: pem });
      const replies: string[] = [];
      ws.on("message", (m) => replies.push(String(m)));
      await new Promise<void>((r, j) => {
        ws.once("open", () => r());
        ws.once("error", j);
      });
      ws.send("hello");
      await until(() => replies.length === 1);
      expect(replies).toEqual(["echo:hello"]);
      ws.close();
    } finally {
      await qp.close();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });

  it("relays an upgrade the app does not accept, body framed, then closes instead of piping raw", async () => {
    const { dir } = mounted();
    const qp = await tlsProxy(dir);
    const before = backend.seen.length;
    const text = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect(
        { host: "127.0.0.1", port: qp.ports.servingTls, rejectUnauthorized: false },
        () =>
          socket.write(
            "POST /ws HTTP/1.1\r\nHost: app\r\nConnection: upgrade\r\nUpgrade: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
              "5\r\nhello\r\n0\r\n\r\nGET /after HTTP/1.1\r\nHost: app\r\n\r\n",
          ),
      );
      let out = "";
      socket.setEncoding("latin1");
      socket.on("data", (d: string) => {
        out += d;
      });
      socket.once("close", () => resolve(out));
      socket.once("error", reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // The app read the chunked body as the upgrade request's body, and nothing after it reached the app.
    expect(backend.seen.slice(before).map((s) => [s.url, s.body, s.headers["transfer-encoding"]])).toEqual([
      ["/ws", "hello", "chunked"],
    ]);
  });

  it("refuses a TLS 1.2-only client when QUEUE_PROXY_TLS_MIN_VERSION is 1.3", async () => {
    const { dir, fingerprint } = mounted();
    const qp = await tlsProxy(dir, { QUEUE_PROXY_TLS_MIN_VERSION: "1.3" });
    await expect(servedFingerprint(qp.ports.servingTls, { maxVersion: "TLSv1.2" })).rejects.toThrow();
    expect(await servedFingerprint(qp.ports.servingTls, { minVersion: "TLSv1.3" })).toBe(fingerprint);
  });

  it("serves a TLS 1.2 client with the configured cipher suite and curve", async () => {
    const { dir } = mounted();
    const qp = await tlsProxy(dir, {
      QUEUE_PROXY_TLS_CIPHER_SUITES: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
      QUEUE_PROXY_TLS_CURVE_PREFERENCES: "CurveP384",
    });
    const cipher = await new Promise<string>((resolve, reject) => {
      const socket = tls.connect(
        { host: "127.0.0.1", port: qp.ports.servingTls, rejectUnauthorized: false, maxVersion: "TLSv1.2" },
        () => {
          resolve(
            `${socket.getCipher().name} ${(socket.getEphemeralKeyInfo() as tls.EphemeralKeyInfo).name}`,
          );
          socket.end();
        },
      );
      socket.on("error", reject);
    });
    expect(cipher).toBe("ECDHE-ECDSA-AES256-GCM-SHA384 secp384r1");
  });
});

describe("shutdown with idle keep-alive clients", () => {
  it("does not wait for idle HTTP/1.1 and HTTP/2 connections on either port", async () => {
    const { dir, pem } = mounted();
    const qp = await startInProcess(backend.port, {
      QUEUE_SERVING_TLS_PORT: "0",
      THAW_CERTS_DIR: dir,
      THAW_DRAIN_QUIET_PERIOD_MS: "100",
    });
    const plainAgent = new http.Agent({ keepAlive: true });
    const tlsAgent = new https.Agent({ keepAlive: true, ca: pem });
    const session = http2.connect(`https://127.0.0.1:${qp.ports.servingTls}`, { ca: pem });
    try {
      expect((await get(`${qp.url}/plain-ka`, {}, { agent: plainAgent })).status).toBe(200);
      const viaTls = await new Promise<number>((resolve, reject) => {
        https
          .get({ host: "127.0.0.1", port: qp.ports.servingTls, path: "/tls-ka", agent: tlsAgent }, (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          })
          .on("error", reject);
      });
      expect(viaTls).toBe(200);
      const h2Status = await new Promise<number>((resolve, reject) => {
        const stream = session.request({ ":path": "/h2-ka" });
        stream.on("response", (h) => resolve(Number(h[":status"])));
        stream.on("error", reject);
        stream.resume();
        stream.end();
      });
      expect(h2Status).toBe(200);
      const t0 = Date.now();
      await qp.shutdown();
      expect(Date.now() - t0).toBeLessThan(3000);
    } finally {
      plainAgent.destroy();
      tlsAgent.destroy();
      session.destroy();
    }
  });
});

describe("certificate reload", () => {
  it("swaps in a new certificate every period and keeps the old one when the files are broken", async () => {
    const { dir, fingerprint: first } = mounted();
    const clock = new ManualClock(1_700_000_000_000);
    const lines: string[] = [];
    const qp = await startQueueProxy(
      configFor(backend.port, { QUEUE_SERVING_TLS_PORT: "0", THAW_CERTS_DIR: dir }),
      {
        clock,
        prober: () => true,
        requestLog: null,
        log: (line) => lines.push(line),
      },
    );
    running.push(qp);
    const port = qp.ports.servingTls;
    expect(await servedFingerprint(port)).toBe(first);

    const { fingerprint: second } = writeCert(dir);
    expect(second).not.toBe(first);
    await clock.advance(59_999);
    expect(await servedFingerprint(port)).toBe(first);
    await clock.advance(1);
    expect(await servedFingerprint(port)).toBe(second);

    const broken: { name: string; file: string; content: string | null; names: string }[] = [
      { name: "garbage certificate", file: "tls.crt", content: "not a cert", names: "tls.crt" },
      { name: "garbage key", file: "tls.key", content: "not a key", names: "tls.key" },
      { name: "missing key", file: "tls.key", content: null, names: "tls.key" },
      { name: "missing certificate", file: "tls.crt", content: null, names: "tls.crt" },
    ];
    for (const row of broken) {
      writeCert(dir); // a good pair first, then break one half of it
      if (row.content === null) rmSync(join(dir, row.file));
      else writeFileSync(join(dir, row.file), row.content);
      lines.length = 0;
      await clock.advance(60_000);
      expect(await servedFingerprint(port), row.name).toBe(second);
      expect(lines, row.name).toHaveLength(1);
      expect(lines[0], row.name).toContain(join(dir, row.names));
    }
    // A key from another pair: the mismatch names both files, the old certificate stays.
    const other = certsDir();
    dirs.push(other);
    writeCert(dir);
    writeCert(other.dir);
    writeFileSync(join(dir, "tls.key"), readFileSync(join(other.dir, "tls.key")));
    lines.length = 0;
    await clock.advance(60_000);
    expect(await servedFingerprint(port)).toBe(second);
    expect(lines[0]).toMatch(/does not match/);

    // A good pair again is picked up on the next tick.
    const { fingerprint: third } = writeCert(dir);
    await clock.advance(60_000);
    expect(await servedFingerprint(port)).toBe(third);

    // Closing stops the reload timer.
    await qp.close();
    running.splice(0);
    expect(clock.pending).toBe(0);
  });
});

describe("bin with the TLS port", () => {
  it("prints the TLS port, serves on it, and drains it on SIGTERM with exit 0", async () => {
    const { dir, pem } = mounted();
    const child = await runBin(
      baseEnv(backend.port, {
        QUEUE_SERVING_TLS_PORT: "0",
        THAW_CERTS_DIR: dir,
        THAW_DRAIN_QUIET_PERIOD_MS: "200",
      }),
    );
    try {
      const port = child.ports.servingTls;
      expect(port).toBeGreaterThan(0);
      const inFlight = [httpsGet(port, "/tls-h1?sleep=1500", pem), h2Get(port, "/tls-h2?sleep=1500", pem)];
      await until(() => backend.seen.filter((s) => s.url.startsWith("/tls-h")).length === 2);
      child.proc.kill("SIGTERM");
      // Past the 200 ms quiet period the port accepts no new connection, while both requests still run.
      await until(
        () =>
          servedFingerprint(port).then(
            () => false,
            () => true,
          ),
        1200,
      );
      const answers = await Promise.all(inFlight);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(await child.exited).toBe(0);
    } finally {
      child.proc.kill("SIGKILL");
    }
  });

  const upgraded: { name: string; graceMs: string; clientCloses: boolean }[] = [
    {
      name: "keeps a TLS websocket through the drain and exits once it closes",
      graceMs: "5000",
      clientCloses: true,
    },
    { name: "cuts a TLS websocket after THAW_HIJACKED_GRACE_MS", graceMs: "600", clientCloses: false },
  ];
  for (const row of upgraded) {
    it(row.name, async () => {
      const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
      wss.on("connection", (ws) => ws.on("message", (m) => ws.send(`echo:${m}`)));
      await new Promise<void>((r) => wss.once("listening", () => r()));
      const { dir, pem } = mounted();
      const child = await runBin(
        baseEnv((wss.address() as AddressInfo).port, {
          QUEUE_SERVING_TLS_PORT: "0",
          THAW_CERTS_DIR: dir,
          THAW_DRAIN_QUIET_PERIOD_MS: "200",
          THAW_HIJACKED_GRACE_MS: row.graceMs,
        }),
      );
      try {
        const port = child.ports.servingTls;
        const ws = new WebSocket(`wss://127.0.0.1:${port}/`, { ca: pem });
        const replies: string[] = [];
        let closed = false;
        ws.on("message", (m) => replies.push(String(m)));
        ws.on("close", () => {
          closed = true;
        });
        await new Promise<void>((r, j) => {
          ws.once("open", () => r());
          ws.once("error", j);
        });
        const t0 = Date.now();
        child.proc.kill("SIGTERM");
        await new Promise((r) => setTimeout(r, 450)); // past the quiet period: the servers are closed
        ws.send("after-drain");
        await until(() => replies.length === 1);
        expect(replies).toEqual(["echo:after-drain"]);
        if (row.clientCloses) {
          await new Promise((r) => setTimeout(r, 800));
          expect(closed).toBe(false); // still waiting for it, well within the 5 s grace
          ws.close();
        }
        expect(await child.exited).toBe(0);
        await until(() => closed);
        if (!row.clientCloses) expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
      } finally {
        child.proc.kill("SIGKILL");
        await new Promise<void>((r) => wss.close(() => r()));
      }
    });
  }

  it("exits 1 naming every bad QUEUE_PROXY_TLS_* variable and entry at once", async () => {
    const child = await runBin(
      baseEnv(backend.port, {
        QUEUE_PROXY_TLS_MIN_VERSION: "1.0",
        QUEUE_PROXY_TLS_CIPHER_SUITES: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_RSA_WITH_RC4_128_SHA",
        QUEUE_PROXY_TLS_CURVE_PREFERENCES: "CurveP999",
      }),
    );
    expect(await child.exited).toBe(1);
    const err = child.stderr();
    expect(err).toMatch(/QUEUE_PROXY_TLS_MIN_VERSION is "1\.0": expected 1\.2 or 1\.3/);
    expect(err).toMatch(/QUEUE_PROXY_TLS_CIPHER_SUITES has unknown cipher suite "TLS_RSA_WITH_RC4_128_SHA"/);
    expect(err).toMatch(/QUEUE_PROXY_TLS_CURVE_PREFERENCES has unknown curve "CurveP999"/);
  });

  it("exits 1 naming the file when the mounted certificate cannot be loaded", async () => {
    const d = certsDir();
    dirs.push(d);
    writeFileSync(join(d.dir, "tls.crt"), "garbage");
    writeFileSync(join(d.dir, "tls.key"), "garbage");
    const child = await runBin(baseEnv(backend.port, { QUEUE_SERVING_TLS_PORT: "0", THAW_CERTS_DIR: d.dir }));
    expect(await child.exited).toBe(1);
    expect(child.stderr()).toContain(join(d.dir, "tls.crt"));
  });
});
