#!/usr/bin/env node
// The app of the protocol tests, one process speaking every protocol a path must carry, on one port (PORT):
// HTTP/1.1 and h2c prior knowledge are told apart by the connection's first bytes (the HTTP/2 preface starts
// with `PRI`, no HTTP/1 method), as a queue-proxy sends its app HTTP/2 only when the client spoke it.
//   HTTP/1  POST /echo           the body back, `x-app-pid`
//   HTTP/1  GET /sse?n=&gapMs=   n server-sent events `id: i` / `data: {"pid","i"}`, one every gapMs, then the end
//   HTTP/1  Upgrade: websocket   every message echoed as sent; the 101 carries `x-app-pid`
//   h2c     POST /h2/echo        the body back, `x-app-pid`, `x-app-protocol: 2`
//   gRPC    thaw.test.Echo/{Unary,ServerStream,Bidi} (JSON messages, served by @grpc/grpc-js); Unary with
//           `fail: code` answers that status
// Every answer names the process (pid) so a test sees which pod took it. Env: PORT, STARTUP_DELAY_MS
// (default 300: a cold start that takes a moment).
import { createServer as createHttp1 } from "node:http";
import http2 from "node:http2";
import { createServer as createTcp } from "node:net";
import * as grpc from "@grpc/grpc-js";
import { WebSocketServer } from "ws";
import { ECHO_SERVICE } from "./protocol-service.mjs";

const port = Number(process.env.PORT ?? 8080);
const delay = Number(process.env.STARTUP_DELAY_MS ?? 300);
if (!Number.isInteger(port) || port <= 0 || !Number.isFinite(delay) || delay < 0) {
  console.error("protocol-app: PORT must be a port number and STARTUP_DELAY_MS a number >= 0");
  process.exit(1);
}
const pid = String(process.pid);

/** @param {import("node:stream").Readable} req @param {(body: Buffer) => void} done */
const readAll = (req, done) => {
  const parts = [];
  req.on("data", (c) => parts.push(c));
  req.on("end", () => done(Buffer.concat(parts)));
};

const http1 = createHttp1((req, res) => {
  const url = new URL(req.url ?? "/", "http://app");
  if (url.pathname === "/sse") {
    const n = Number(url.searchParams.get("n") ?? 5);
    const gapMs = Number(url.searchParams.get("gapMs") ?? 20);
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      "x-app-pid": pid,
    });
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      if (i === n) return res.end();
      res.write(`id: ${i}\ndata: ${JSON.stringify({ pid, i })}\n\n`);
      i++;
      setTimeout(next, gapMs);
    };
    next();
    return;
  }
  if (url.pathname === "/headers") {
    // What reached the app, for tests that check what a proxy in front passed on.
    res.writeHead(200, { "content-type": "application/json", "x-app-pid": pid });
    res.end(JSON.stringify(req.headers));
    return;
  }
  readAll(req, (body) => {
    res.writeHead(200, { "content-type": "application/octet-stream", "x-app-pid": pid });
    res.end(body);
  });
});
http1.keepAliveTimeout = 60_000;
const wss = new WebSocketServer({ noServer: true });
wss.on("headers", (headers) => headers.push(`x-app-pid: ${pid}`));
http1.on("upgrade", (req, socket, head) => {
  wss.handleUpgrade(req, socket, head, (ws) => {
    ws.on("message", (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
});

// gRPC is @grpc/grpc-js's own server on a private port; this app's HTTP/2 side hands it gRPC streams
// (content-type application/grpc) whole: headers, messages and trailers, each way.
const grpcServer = new grpc.Server();
grpcServer.addService(ECHO_SERVICE, {
  Unary(call, cb) {
    // `fail: code` asks for that gRPC status instead (trailers-only answer), so a path's status relay shows.
    if (call.request.fail) cb({ code: call.request.fail, details: `asked to fail by ${pid}` });
    else cb(null, { pid, text: call.request.text });
  },
  ServerStream(call) {
    const { n = 3, gapMs = 20, text = "" } = call.request;
    let i = 0;
    const next = () => {
      if (call.cancelled) return;
      if (i === n) return call.end();
      call.write({ pid, i, text });
      i++;
      setTimeout(next, gapMs);
    };
    next();
  },
  Bidi(call) {
    call.on("data", (m) => call.write({ pid, text: m.text }));
    call.on("end", () => call.end());
  },
});
const grpcPort = await new Promise((resolve, reject) =>
  grpcServer.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (err, p) =>
    err ? reject(err) : resolve(p),
  ),
);
const toGrpc = http2.connect(`http://127.0.0.1:${grpcPort}`);
toGrpc.on("error", () => {});

const h2 = http2.createServer();
h2.on("stream", (stream, headers) => {
  stream.on("error", () => {});
  if (String(headers["content-type"] ?? "").startsWith("application/grpc")) {
    const out = {};
    for (const [k, v] of Object.entries(headers)) if (k !== ":authority" && k !== ":scheme") out[k] = v;
    const up = toGrpc.request(out);
    up.on("error", () => stream.destroy());
    // A trailers-only answer (a gRPC error status: grpc-status among the headers) ends with its headers:
    // pass it on as one.
    up.on("response", (h) => {
      if (h["grpc-status"] !== undefined) return stream.respond(h, { endStream: true });
      stream.respond(h, { waitForTrailers: true });
      up.pipe(stream);
    });
    let trailers = {};
    up.on("trailers", (t) => {
      trailers = t;
    });
    stream.on("wantTrailers", () => stream.sendTrailers(trailers));
    stream.pipe(up);
    stream.on("close", () => up.close());
    return;
  }
  if (String(headers[":path"]).startsWith("/headers")) {
    stream.respond({ ":status": 200, "content-type": "application/json", "x-app-protocol": "2" });
    stream.end(JSON.stringify(headers));
    return;
  }
  readAll(stream, (body) => {
    stream.respond({ ":status": 200, "x-app-pid": pid, "x-app-protocol": "2" });
    stream.end(body);
  });
});

const front = createTcp((socket) => {
  socket.on("error", () => socket.destroy());
  socket.once("data", (chunk) => {
    socket.pause();
    socket.unshift(chunk);
    if (chunk.subarray(0, 3).toString("latin1") === "PRI") h2.emit("connection", socket);
    else http1.emit("connection", socket);
    process.nextTick(() => socket.resume());
  });
});
process.on("SIGTERM", () => {
  front.close();
  grpcServer.forceShutdown();
  process.exit(0);
});
setTimeout(() => front.listen(port, "127.0.0.1"), delay);
