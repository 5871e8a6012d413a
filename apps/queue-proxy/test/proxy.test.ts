import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { Writable } from "node:stream";
import { systemClock } from "@thaw/clock";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { startQueueProxy } from "../src/queue-proxy.js";
import { configFor, get, startBackend, startInProcess, until } from "./helpers.js";

type Backend = Awaited<ReturnType<typeof startBackend>>;
let backend: Backend;
let qp: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  backend = await startBackend();
  // The app speaks h2c too, so its port is named h2c (HTTP/2 requests reach it as HTTP/2).
  qp = await startInProcess(backend.port, { THAW_USER_PORT_NAME: "h2c" });
});
afterAll(async () => {
  await qp.close();
  await backend.close();
});

async function seenFor(headers: Record<string, string>, path = "/echo") {
  const res = await get(`${qp.url}${path}`, headers);
  expect(res.status).toBe(200);
  return JSON.parse(res.body) as { headers: Record<string, string>; url: string };
}

describe("header shims on the way to the app", () => {
  const rows: { name: string; send: Record<string, string>; expect: Record<string, string | undefined> }[] = [
    {
      name: "Forwarded synthesised from X-Forwarded-*",
      send: {
        "x-forwarded-for": "1.1.1.1, 2.2.2.2",
        "x-forwarded-host": "a.example",
        "x-forwarded-proto": "https",
      },
      expect: { forwarded: "for=1.1.1.1;host=a.example;proto=https, for=2.2.2.2" },
    },
    {
      name: "Forwarded with an IPv6 node",
      send: { "x-forwarded-for": "2001:db8::1" },
      expect: { forwarded: 'for="[2001:db8::1]"' },
    },
    {
      name: "an existing Forwarded is kept as it is",
      send: { forwarded: "for=9.9.9.9", "x-forwarded-for": "1.1.1.1" },
      expect: { forwarded: "for=9.9.9.9" },
    },
    { name: "no X-Forwarded-*: no Forwarded", send: {}, expect: { forwarded: undefined } },
    {
      // Issue 26: the client's Connection names fields; the queue-proxy's own Forwarded still reaches the app.
      name: "Connection naming forwarding fields: the synthesised Forwarded survives",
      send: {
        "x-forwarded-for": "1.1.1.1",
        "x-forwarded-proto": "https",
        forwarded: "for=6.6.6.6",
        connection: "forwarded, k-proxy-request",
        "k-proxy-request": "activator",
      },
      expect: {
        forwarded: "for=1.1.1.1;proto=https",
        "x-forwarded-for": "1.1.1.1",
        "k-proxy-request": undefined,
      },
    },
    {
      name: "K-Original-Host becomes Host and is removed",
      send: { "k-original-host": "hello.default.example.com" },
      expect: { host: "hello.default.example.com", "k-original-host": undefined },
    },
    {
      name: "revision headers are removed",
      send: { "knative-serving-revision": "hello-00001", "knative-serving-namespace": "default" },
      expect: { "knative-serving-revision": undefined, "knative-serving-namespace": undefined },
    },
    {
      name: "K-Proxy-Request passes through to the app",
      send: { "k-proxy-request": "activator" },
      expect: { "k-proxy-request": "activator" },
    },
    {
      name: "ordinary headers pass, hop-by-hop ones do not",
      send: { "x-custom": "1", "keep-alive": "timeout=5", "proxy-authorization": "Basic x" },
      expect: { "x-custom": "1", "keep-alive": undefined, "proxy-authorization": undefined },
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const seen = await seenFor(row.send);
      for (const [k, v] of Object.entries(row.expect)) expect(seen.headers[k]).toBe(v);
    });
  }

  it("keeps the path and query", async () => {
    const seen = await seenFor({}, "/a/b?x=1&y=%20");
    expect(seen.url).toBe("/a/b?x=1&y=%20");
  });
});

describe("bodies stream both ways", () => {
  it("uploads a chunked request body", async () => {
    const body = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${qp.url}/up`, { method: "POST", agent: false }, (res) => {
        let text = "";
        res.on("data", (c) => {
          text += c;
        });
        res.on("end", () => resolve(text));
      });
      req.on("error", reject);
      req.write("part1-");
      setTimeout(() => req.end("part2"), 30);
    });
    expect(JSON.parse(body).body).toBe("part1-part2");
  });

  it("delivers response chunks before the response ends", async () => {
    const firstChunkAt = await new Promise<{ first: number; end: number }>((resolve, reject) => {
      const t0 = Date.now();
      let first = 0;
      http
        .get(`${qp.url}/s?stream=5`, { agent: false }, (res) => {
          res.on("data", () => {
            if (first === 0) first = Date.now() - t0;
          });
          res.on("end", () => resolve({ first, end: Date.now() - t0 }));
        })
        .on("error", reject);
    });
    expect(firstChunkAt.end - firstChunkAt.first).toBeGreaterThanOrEqual(150);
  });
});

describe("upstream errors", () => {
  it("answers 502 with the error text when the app refuses connections, marked as never reaching the app", async () => {
    const free = net.createServer();
    await new Promise<void>((r) => free.listen(0, "127.0.0.1", r));
    const port = (free.address() as net.AddressInfo).port;
    await new Promise<void>((r) => free.close(() => r()));
    const dead = await startInProcess(port);
    try {
      const res = await get(`${dead.url}/`);
      expect(res.status).toBe(502);
      expect(res.body).toMatch(/ECONNREFUSED/);
      // The proxy in front may send it elsewhere, whatever the method: no byte reached the app.
      expect(res.headers["x-thaw-app-unreached"]).toBe("1");
      const post = await get(`${dead.url}/`, {}, { method: "POST", body: "x" });
      expect(post.headers["x-thaw-app-unreached"]).toBe("1");
    } finally {
      await dead.close();
    }
  });

  it("cancels the upstream call and writes nothing when the client goes away", async () => {
    const before = backend.seen.length;
    const req = http.get(`${qp.url}/slow?sleep=400`, { agent: false });
    req.on("error", () => {});
    await until(() => backend.seen.length > before);
    req.destroy();
    // The request is no longer in flight once the client left (stats and sweeper forget it).
    await until(async () => {
      const stat = await get(`http://127.0.0.1:${qp.ports.userMetrics}/metrics`);
      return stat.body.includes('http_response_status_code="0"');
    }, 3000);
  });
});

describe("h2c prior knowledge on the serving port", () => {
  it("serves HTTP/2 and forwards over h2c", async () => {
    const session = http2.connect(qp.url);
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ ":path": "/h2?x=1", "x-test": "yes" });
        let status = 0;
        let body = "";
        stream.on("response", (h) => {
          status = Number(h[":status"]);
        });
        stream.on("data", (c) => {
          body += c;
        });
        stream.on("end", () => resolve({ status, body }));
        stream.on("error", reject);
      });
      expect(status).toBe(200);
      const seen = JSON.parse(body);
      expect(seen.httpVersion).toBe("2.0");
      expect(seen.url).toBe("/h2?x=1");
      expect(seen.headers["x-test"]).toBe("yes");
    } finally {
      session.close();
    }
  });

  it("answers probes over HTTP/2 too", async () => {
    const session = http2.connect(qp.url);
    try {
      const body = await new Promise<string>((resolve, reject) => {
        const stream = session.request({
          ":path": "/",
          "user-agent": "kube-probe/1.30",
          "k-network-probe": "queue",
        });
        let text = "";
        stream.on("data", (c) => {
          text += c;
        });
        stream.on("end", () => resolve(text));
        stream.on("error", reject);
      });
      expect(body).toBe("queue");
    } finally {
      session.close();
    }
  });

  it("still serves HTTP/1.1 on the same port", async () => {
    const seen = await seenFor({});
    expect(seen.headers.host).toBe(`127.0.0.1:${qp.ports.serving}`);
  });
});

describe("websocket upgrade pass-through", () => {
  it("tunnels frames both ways", async () => {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    wss.on("connection", (ws, req) => {
      ws.on("message", (m) => ws.send(`echo:${m}:${req.headers["x-hello"]}`));
    });
    await new Promise<void>((r) => wss.once("listening", () => r()));
    const port = (wss.address() as net.AddressInfo).port;
    const wqp = await startInProcess(port);
    try {
      const ws = new WebSocket(`ws://127.0.0.1:${wqp.ports.serving}/ws`, { headers: { "x-hello": "hi" } });
      const reply = await new Promise<string>((resolve, reject) => {
        ws.on("open", () => ws.send("ping"));
        ws.on("message", (m) => resolve(String(m)));
        ws.on("error", reject);
      });
      expect(reply).toBe("echo:ping:hi");
      ws.close();
    } finally {
      await wqp.close();
      await new Promise<void>((r) => wss.close(() => r()));
    }
  });
});

describe("request log (THAW_REQUEST_LOG)", () => {
  it("writes one JSON line per request, shaped like Knative's httpRequest template", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const lqp = await startQueueProxy(configFor(backend.port), {
      clock: systemClock,
      prober: () => true,
      requestLog: pino({ base: null }, sink),
    });
    try {
      const url = `http://127.0.0.1:${lqp.ports.serving}/logged?x=1`;
      const res = await get(
        url,
        { "user-agent": "curl/8", referer: "http://r/" },
        { method: "POST", body: "abc" },
      );
      expect(res.status).toBe(200);
      await until(() => lines.length === 1);
      const { httpRequest } = JSON.parse(lines[0] as string);
      expect(httpRequest).toMatchObject({
        requestMethod: "POST",
        requestUrl: "/logged?x=1",
        requestSize: "3",
        status: 200,
        responseSize: res.headers["content-length"],
        userAgent: "curl/8",
        remoteIp: "127.0.0.1",
        serverIp: "127.0.0.1",
        referer: "http://r/",
        protocol: "HTTP/1.1",
      });
      expect(httpRequest.latency).toMatch(/^\d+\.\d{6}s$/);
    } finally {
      await lqp.close();
    }
  });
});
