import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { Readable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { H1Upstream, type UpstreamRequest } from "../src/h1-upstream.js";
import { BODY_CHUNKED, BODY_NONE } from "../src/ports.js";
import { collect, get, type Outcome, startInProcess, until } from "./helpers.js";

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

/** Sends one request through `pool` and resolves with what came back. */
function send(pool: H1Upstream, req: Partial<UpstreamRequest> = {}): Promise<Outcome> {
  return collect((sink) =>
    pool.dispatch(
      { method: "GET", path: "/", headers: ["host", "app"], body: null, framing: BODY_NONE, ...req },
      sink,
    ),
  );
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return (server.address() as net.AddressInfo).port;
}

/** An HTTP app that counts the TCP connections it accepted. */
async function countingApp(
  handler: http.RequestListener,
): Promise<{ port: number; connections: () => number }> {
  const server = http.createServer(handler);
  let connections = 0;
  server.on("connection", () => connections++);
  const port = await listen(server);
  closers.push(() => server.closeAllConnections());
  return { port, connections: () => connections };
}

function pool(port: number, max = 10): H1Upstream {
  const p = new H1Upstream({ port, maxConnections: max });
  closers.push(() => p.destroy());
  return p;
}

describe("H1Upstream: connections", () => {
  it("reuses one keep-alive connection for requests one after another", async () => {
    const app = await countingApp((_req, res) => res.end("ok"));
    const p = pool(app.port);
    for (let i = 0; i < 5; i++) expect((await send(p)).body).toBe("ok");
    expect(app.connections()).toBe(1);
  });

  it("opens at most `max` connections and serves the rest in arrival order", async () => {
    const order: string[] = [];
    const app = await countingApp((req, res) => {
      order.push(req.url ?? "");
      setTimeout(() => res.end(req.url), 20);
    });
    const p = pool(app.port, 2);
    const outs = await Promise.all(Array.from({ length: 8 }, (_, i) => send(p, { path: `/${i}` })));
    expect(outs.map((o) => o.body)).toEqual(Array.from({ length: 8 }, (_, i) => `/${i}`));
    expect(app.connections()).toBe(2);
    expect(order.slice(2)).toEqual(["/2", "/3", "/4", "/5", "/6", "/7"]);
  });

  it("does not reuse a connection past the app's Keep-Alive timeout hint (minus a second)", async () => {
    const app = await countingApp((_req, res) => {
      res.setHeader("keep-alive", "timeout=1");
      res.end("ok");
    });
    const p = pool(app.port);
    await send(p);
    await send(p);
    expect(app.connections()).toBe(2);
  });

  it("drops an idle connection the app closed and dials a new one", async () => {
    const server = http.createServer((_req, res) => res.end("ok"));
    server.keepAliveTimeout = 30;
    let connections = 0;
    server.on("connection", () => connections++);
    const port = await listen(server);
    const p = pool(port);
    await send(p);
    await until(() => p.size === 0, 2000);
    expect((await send(p)).body).toBe("ok");
    expect(connections).toBe(2);
  });

  it("an app process SIGKILLed while its connection idles: GET and POST after its exit are refused, the dead socket is not reused", async () => {
    // A real child process: the kernel closes its sockets when it dies, so the idle connection sees EOF
    // through the upstream's `onread` path and must leave the pool before the next request.
    const app = spawn(
      process.execPath,
      [
        "-e",
        'const s = require("node:http").createServer((q, r) => { q.resume(); q.on("end", () => r.end("ok")); });' +
          's.listen(0, "127.0.0.1", () => console.log(s.address().port));',
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    closers.push(() => {
      app.kill("SIGKILL");
    });
    const port = await new Promise<number>((r) => app.stdout.once("data", (d) => r(Number(String(d)))));
    const p = pool(port);
    expect((await send(p)).body).toBe("ok");
    expect(p.size).toBe(1);
    const exited = new Promise((r) => app.once("exit", r));
    app.kill("SIGKILL");
    await exited;
    const get = await send(p);
    const post = await send(p, {
      method: "POST",
      headers: [],
      body: Readable.from([Buffer.from("x")]),
      framing: 1,
    });
    // ECONNREFUSED is what the exchange marks as unreached; ECONNRESET/EPIPE would mean the dead socket was reused.
    expect((get.error as { code?: string } | undefined)?.code).toBe("ECONNREFUSED");
    expect((post.error as { code?: string } | undefined)?.code).toBe("ECONNREFUSED");
    // The sink is told so too: a proxy in front of several pods may send either elsewhere.
    expect([get.unsent, post.unsent]).toEqual([true, true]);
  });

  it("adds Host when the request has none and writes the request line as given", async () => {
    let seen: http.IncomingHttpHeaders = {};
    let url = "";
    const app = await countingApp((req, res) => {
      seen = req.headers;
      url = req.url ?? "";
      res.end();
    });
    const p = pool(app.port);
    await send(p, { headers: ["X-A", "1"], path: "/a/b?c=d%20e" });
    expect(seen.host).toBe(`127.0.0.1:${app.port}`);
    expect(seen["x-a"]).toBe("1");
    expect(url).toBe("/a/b?c=d%20e");
  });
});

/** A scripted app on a raw socket: `answer(n, socket)` is called for the n-th request head it reads. */
async function rawApp(answer: (n: number, socket: net.Socket, head: string) => void): Promise<number> {
  let n = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let buf = "";
    socket.on("data", (d) => {
      buf += d.toString("latin1");
      for (let end = buf.indexOf("\r\n\r\n"); end >= 0; end = buf.indexOf("\r\n\r\n")) {
        const head = buf.slice(0, end);
        buf = buf.slice(end + 4);
        answer(n++, socket, head);
      }
    });
    socket.on("error", () => {});
  });
  closers.push(() => {
    for (const s of sockets) s.destroy();
  });
  return listen(server);
}

describe("H1Upstream: a connection the app closes under a request", () => {
  it("replays a GET that got no byte back on a fresh connection", async () => {
    const port = await rawApp((n, socket) => {
      // The second request arrives on the kept-alive connection, which the app then closes unanswered.
      if (n === 1) socket.destroy();
      else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const p = pool(port);
    expect((await send(p)).body).toBe("ok");
    const second = await send(p);
    expect(second.error).toBeUndefined();
    expect(second.body).toBe("ok");
  });

  it("does not replay a POST: 502-worthy error instead, which may have reached the app", async () => {
    const port = await rawApp((n, socket) => {
      if (n === 1) socket.destroy();
      else socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    const p = pool(port);
    await send(p);
    const body = Readable.from([Buffer.from("x")]);
    const out = await send(p, { method: "POST", headers: [], body, framing: 1 });
    expect(out.error).toBeDefined();
    expect(out.unsent).toBe(false);
  });

  it("reports a response cut short after its head", async () => {
    const port = await rawApp((_n, socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
      setTimeout(() => socket.destroy(), 10);
    });
    const out = await send(pool(port));
    expect(out.status).toBe(200);
    expect(out.body).toBe("abc");
    expect(out.error?.message).toMatch(/closed before the response ended/);
  });

  it("drops a connection that sent bytes beyond a complete response, and the next request dials anew", async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections++;
      socket.on("data", () => socket.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA"));
      socket.on("error", () => {});
    });
    const port = await listen(server);
    const p = pool(port);
    expect((await send(p)).body).toBe("ok");
    const second = await send(p);
    expect(second.error).toBeUndefined();
    expect(second.body).toBe("ok");
    expect(connections).toBe(2);
  });

  it("reports a malformed response", async () => {
    const port = await rawApp((_n, socket) => socket.write("HTP/1.1 200 OK\r\n\r\n"));
    const out = await send(pool(port));
    expect(out.error?.message).toMatch(/malformed response: bad status line/);
  });
});

describe("H1Upstream: bodies", () => {
  it("frames a body from the parsed request: chunked re-chunked, a length as content-length", async () => {
    const seen: { te?: string; cl?: string; body: string }[] = [];
    const app = await countingApp((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ te: req.headers["transfer-encoding"], cl: req.headers["content-length"], body });
        res.end();
      });
    });
    const p = pool(app.port);
    await send(p, {
      method: "POST",
      body: Readable.from([Buffer.from("ab"), Buffer.from("cd")]),
      framing: BODY_CHUNKED,
    });
    await send(p, { method: "PUT", headers: [], body: Readable.from([Buffer.from("wxyz")]), framing: 4 });
    expect(seen).toEqual([
      { te: "chunked", cl: undefined, body: "abcd" },
      { te: undefined, cl: "4", body: "wxyz" },
    ]);
    expect(app.connections()).toBe(1);
  });

  it("sends a body in hand with its head, framed by its length, and keeps the connection", async () => {
    const seen: { cl?: string; body: string }[] = [];
    const app = await countingApp((req, res) => {
      let body = "";
      req.on("data", (c) => {
        body += c;
      });
      req.on("end", () => {
        seen.push({ cl: req.headers["content-length"], body });
        res.end("ok");
      });
    });
    const p = pool(app.port);
    const bytes = new TextEncoder().encode("héllo");
    const first = await send(p, { method: "POST", body: bytes, framing: bytes.byteLength });
    const second = await send(p, { method: "PUT", body: Buffer.from("abc"), framing: 3 });
    expect([first.body, second.body]).toEqual(["ok", "ok"]);
    expect(seen).toEqual([
      { cl: "6", body: "héllo" },
      { cl: "3", body: "abc" },
    ]);
    expect(app.connections()).toBe(1);
  });

  it("an early answer while the body is still uploading ends the exchange and drops the connection", async () => {
    const app = await countingApp((req, res) => {
      if (req.method === "POST") res.writeHead(413, { connection: "keep-alive", "content-length": 0 }).end();
      else res.end();
    });
    const p = pool(app.port);
    const endless = new Readable({ read() {} });
    endless.push(Buffer.alloc(1024));
    const out = await send(p, { method: "POST", body: endless, framing: BODY_CHUNKED });
    expect(out.status).toBe(413);
    expect((await send(p)).status).toBe(200);
    expect(app.connections()).toBe(2);
    endless.destroy();
  });
});

describe("through the queue-proxy", () => {
  it("streams 8 MiB both ways byte for byte", async () => {
    const app = http.createServer((req, res) => {
      const h = createHash("sha256");
      let n = 0;
      req.on("data", (c: Buffer) => {
        h.update(c);
        n += c.length;
      });
      req.on("end", () => {
        res.writeHead(200, { "x-upload-sha": h.digest("hex"), "x-upload-bytes": String(n) });
        const block = Buffer.alloc(64 * 1024, 7);
        let sent = 0;
        const pump = () => {
          while (sent < 128) {
            sent++;
            if (!res.write(block)) return void res.once("drain", pump);
          }
          res.end();
        };
        pump();
      });
    });
    const appPort = await listen(app);
    const qp = await startInProcess(appPort);
    closers.push(() => qp.close());
    const upload = Buffer.alloc(8 * 1024 * 1024, 3);
    const result = await new Promise<{ headers: http.IncomingHttpHeaders; bytes: number; sha: string }>(
      (resolve, reject) => {
        const req = http.request(`${qp.url}/big`, { method: "POST", agent: false }, (res) => {
          const h = createHash("sha256");
          let bytes = 0;
          res.on("data", (c: Buffer) => {
            h.update(c);
            bytes += c.length;
          });
          res.on("end", () => resolve({ headers: res.headers, bytes, sha: h.digest("hex") }));
        });
        req.on("error", reject);
        req.end(upload);
      },
    );
    expect(result.headers["x-upload-bytes"]).toBe(String(upload.length));
    expect(result.headers["x-upload-sha"]).toBe(createHash("sha256").update(upload).digest("hex"));
    expect(result.bytes).toBe(8 * 1024 * 1024);
    expect(result.sha).toBe(
      createHash("sha256")
        .update(Buffer.alloc(8 * 1024 * 1024, 7))
        .digest("hex"),
    );
  });

  it("HEAD, 204 and 304 answers carry no body and keep the connection", async () => {
    const app = await countingApp((req, res) => {
      if (req.url === "/204") res.writeHead(204).end();
      else if (req.url === "/304") res.writeHead(304, { etag: '"x"' }).end();
      else res.writeHead(200, { "content-length": 5 }).end(req.method === "HEAD" ? undefined : "hello");
    });
    const qp = await startInProcess(app.port);
    closers.push(() => qp.close());
    const head = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http.request(`${qp.url}/`, { method: "HEAD", agent: false }, resolve).on("error", reject).end();
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-length"]).toBe("5");
    expect((await get(`${qp.url}/204`)).status).toBe(204);
    const notModified = await get(`${qp.url}/304`);
    expect(notModified.status).toBe(304);
    expect(notModified.body).toBe("");
    expect((await get(`${qp.url}/`)).body).toBe("hello");
    expect(app.connections()).toBe(1);
  });

  it("a malformed app response is a 502 naming the problem", async () => {
    const port = await rawApp((_n, socket) => socket.end("HTTP/1.1 200 OK\r\nBroken\r\n\r\n"));
    const qp = await startInProcess(port);
    closers.push(() => qp.close());
    const res = await get(`${qp.url}/`);
    expect(res.status).toBe(502);
    expect(res.body).toMatch(/malformed response: bad header line/);
    // The app got the request: a proxy in front must not treat this 502 as safe to send elsewhere.
    expect(res.headers["x-thaw-app-unreached"]).toBeUndefined();
    // It answered (badly): not "broke before answering" either.
    expect(res.headers["x-thaw-app-failed"]).toBeUndefined();
  });

  it("an app that dies under a request before answering: a 502 saying so, for the replay rules in front", async () => {
    // A reset right after the request arrived: what a killed app or container does to its connections.
    const port = await rawApp((_n, socket) => socket.resetAndDestroy());
    const qp = await startInProcess(port);
    closers.push(() => qp.close());
    const res = await get(`${qp.url}/`);
    expect(res.status).toBe(502);
    expect(res.headers["x-thaw-app-failed"]).toBe("1");
    expect(res.headers["x-thaw-app-unreached"]).toBeUndefined();
  });
});
