// Clients of the protocol app (protocol-app.mjs), one per protocol, each returning what came back so a test
// can assert bytes, order and status. All take `origin` (http://127.0.0.1:port of the path under test) and
// `host` (the Host / :authority the path routes on), and optional `headers` (gRPC: metadata) such as the
// revision headers the activator is addressed by. Every wait is bounded by `timeoutMs`.
import { request } from "node:http";
import http2 from "node:http2";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import WebSocket from "ws";
import { ECHO_SERVICE } from "./protocol-service.mjs";

/** Path of the protocol app. */
export const PROTOCOL_APP = fileURLToPath(new URL("./protocol-app.mjs", import.meta.url));

const TIMEOUT_MS = 30_000;

/** @param {number} ms @param {string} what */
const deadline = (ms, what) => {
  /** @type {ReturnType<typeof setTimeout>} */
  let t;
  const p = new Promise((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return { p, clear: () => clearTimeout(t) };
};

/** @template T @param {Promise<T>} work @param {number} ms @param {string} what @returns {Promise<T>} */
const bounded = (work, ms, what) => {
  const d = deadline(ms, what);
  return Promise.race([work, d.p]).finally(d.clear);
};

/** HTTP/1.1 POST /echo with `body`. */
export function httpEcho({ origin, host, headers = {}, body, timeoutMs = TIMEOUT_MS }) {
  const url = new URL("/echo", origin);
  const work = new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: "POST", headers: { ...headers, host, "content-type": "text/plain" } },
      (res) => {
        const parts = [];
        res.on("data", (c) => parts.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode,
            body: Buffer.concat(parts).toString(),
            pid: res.headers["x-app-pid"],
          }),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
  return bounded(work, timeoutMs, "HTTP/1 echo");
}

/** GET /sse: reads every event until the stream ends; `onEvent` sees each as it arrives. */
export function sseRead({
  origin,
  host,
  headers = {},
  n,
  gapMs = 20,
  timeoutMs = TIMEOUT_MS,
  onEvent = () => {},
}) {
  const url = new URL(`/sse?n=${n}&gapMs=${gapMs}`, origin);
  const work = new Promise((resolve, reject) => {
    const req = request(url, { headers: { ...headers, host, accept: "text/event-stream" } }, (res) => {
      /** @type {{ id: string, data: { pid: string, i: number } }[]} */
      const events = [];
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (c) => {
        buf += c;
        for (let end = buf.indexOf("\n\n"); end >= 0; end = buf.indexOf("\n\n")) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const id = /^id: (.*)$/m.exec(block)?.[1] ?? "";
          const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? "null");
          const e = { id, data };
          events.push(e);
          onEvent(e);
        }
      });
      res.on("end", () =>
        resolve({ status: res.statusCode, contentType: res.headers["content-type"], events, rest: buf }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  return bounded(work, timeoutMs, "SSE stream");
}

/** Opens a websocket; `send(text)` resolves with the echo. `status` is the handshake's answer when refused. */
export function wsOpen({ origin, host, headers = {}, path = "/ws", timeoutMs = TIMEOUT_MS }) {
  const ws = new WebSocket(`${origin.replace(/^http/, "ws")}${path}`, { headers: { ...headers, host } });
  /** @type {((m: string) => void)[]} */
  const waiting = [];
  ws.on("message", (m) => waiting.shift()?.(m.toString()));
  const opened = new Promise((resolve, reject) => {
    ws.once("upgrade", (res) => resolve({ pid: res.headers["x-app-pid"] }));
    ws.once("unexpected-response", (_req, res) => reject(new Error(`websocket refused: ${res.statusCode}`)));
    ws.once("error", reject);
  });
  return bounded(opened, timeoutMs, "websocket handshake").then(({ pid }) => ({
    pid,
    /** @param {string} text */
    send: (text) =>
      bounded(
        new Promise((resolve) => {
          waiting.push(resolve);
          ws.send(text);
        }),
        timeoutMs,
        "websocket echo",
      ),
    close: () => ws.close(),
  }));
}

/** An HTTP/2 (h2c prior knowledge) session to `origin`; `echo(body)` is POST /h2/echo on it. */
export function h2Session({ origin, host, headers = {}, timeoutMs = TIMEOUT_MS }) {
  const session = http2.connect(origin);
  session.on("error", () => {});
  return {
    /** @param {string} body */
    echo: (body) =>
      bounded(
        new Promise((resolve, reject) => {
          const s = session.request({
            ...headers,
            ":method": "POST",
            ":path": "/h2/echo",
            ":authority": host,
          });
          const parts = [];
          let head = {};
          s.on("response", (h) => {
            head = h;
          });
          s.on("data", (c) => parts.push(c));
          s.on("end", () =>
            resolve({
              status: Number(head[":status"]),
              body: Buffer.concat(parts).toString(),
              pid: head["x-app-pid"],
              appProtocol: head["x-app-protocol"],
            }),
          );
          s.on("error", reject);
          s.end(body);
        }),
        timeoutMs,
        "h2c echo",
      ),
    close: () => session.close(),
  };
}

const EchoClient = grpc.makeGenericClientConstructor(ECHO_SERVICE, "Echo");

/** A real @grpc/grpc-js client of thaw.test.Echo over h2c, with `host` as its :authority. */
export function grpcClient({ origin, host, headers = {}, timeoutMs = TIMEOUT_MS }) {
  const client = new EchoClient(new URL(origin).host, grpc.credentials.createInsecure(), {
    "grpc.default_authority": host,
  });
  const opts = () => ({ deadline: Date.now() + timeoutMs });
  const meta = () => {
    const m = new grpc.Metadata();
    for (const [k, v] of Object.entries(headers)) m.set(k, v);
    return m;
  };
  return {
    /** @param {string} text */
    unary: (text) =>
      new Promise((resolve, reject) =>
        client.Unary({ text }, meta(), opts(), (err, res) => (err ? reject(err) : resolve(res))),
      ),
    /** A unary call that asks for gRPC status `code`: resolves with the status the client got. */
    unaryFailing: (code) =>
      new Promise((resolve) =>
        client.Unary({ fail: code }, meta(), opts(), (err) =>
          resolve(err ? { code: err.code, details: err.details } : { code: 0, details: "" }),
        ),
      ),
    /** All messages of one server stream; `onMessage` sees each as it arrives. */
    serverStream: (n, gapMs = 20, text = "s", onMessage = () => {}) =>
      new Promise((resolve, reject) => {
        const got = [];
        const call = client.ServerStream({ n, gapMs, text }, meta(), opts());
        call.on("data", (m) => {
          got.push(m);
          onMessage(m);
        });
        call.on("error", reject);
        call.on("status", (s) => (s.code === 0 ? resolve(got) : reject(new Error(s.details))));
      }),
    /** A bidi call: `send(text)` resolves with its echo; `end()` resolves with the final status code. */
    bidi: () => {
      const call = client.Bidi(meta(), opts());
      /** @type {((m: unknown) => void)[]} */
      const waiting = [];
      const status = new Promise((resolve) => call.on("status", (s) => resolve(s.code)));
      call.on("data", (m) => waiting.shift()?.(m));
      call.on("error", () => {});
      return {
        /** @param {string} text */
        send: (text) =>
          bounded(
            new Promise((resolve) => {
              waiting.push(resolve);
              call.write({ text });
            }),
            timeoutMs,
            "gRPC bidi echo",
          ),
        end: () => {
          call.end();
          return bounded(status, timeoutMs, "gRPC bidi status");
        },
      };
    },
    close: () => client.close(),
  };
}
