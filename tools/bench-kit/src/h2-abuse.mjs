// HTTP/2 clients that misbehave, and the app that counts what reaches it, for the rapid-reset (CVE-2023-44487)
// and idle-session tests of every Thaw server: streams reset with their HEADERS, a reset flood, a connection
// that sends only the preface, a session left without streams. Bounded in count and time; loopback only.
import { createServer as createHttp1 } from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { fileURLToPath } from "node:url";

/** Path of the counting app as a process (PORT; HTTP1_ONLY=1 for an app without h2c). */
export const COUNT_APP = fileURLToPath(new URL("./h2-count-app.mjs", import.meta.url));

const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
const { NGHTTP2_CANCEL } = http2.constants;

/** Resolves when `session` has the server's SETTINGS (or rejects on a session error before it). */
function settled(session) {
  return new Promise((resolve, reject) => {
    session.once("remoteSettings", () => resolve(session));
    session.once("error", reject);
  });
}

/** An h2c (prior knowledge) session to 127.0.0.1:`port`, once the server's SETTINGS arrived. */
export function h2Connect(port) {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  return settled(session);
}

/** One request on `session` (or a new session to `port`): status, body text. */
export async function h2Request(target, headers, { timeoutMs = 10_000 } = {}) {
  const own = typeof target === "number";
  const session = own ? await h2Connect(target) : target;
  try {
    return await new Promise((resolve, reject) => {
      const stream = session.request(headers);
      const timer = setTimeout(() => {
        stream.close(NGHTTP2_CANCEL);
        reject(new Error(`no answer to ${headers[":path"]} within ${timeoutMs} ms`));
      }, timeoutMs);
      let status = 0;
      let body = "";
      stream.setEncoding("utf8");
      stream.on("response", (h) => (status = Number(h[":status"])));
      stream.on("data", (d) => (body += d));
      stream.on("end", () => {
        clearTimeout(timer);
        resolve({ status, body });
      });
      stream.on("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      stream.end();
    });
  } finally {
    if (own) session.close();
  }
}

/** One HTTP/2 frame: 9-byte header (length, type, flags, stream id) and payload. */
function frame(type, flags, id, payload) {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(id, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK string literal, no Huffman (values here stay under 127 bytes). */
function str(s) {
  const b = Buffer.from(s, "latin1");
  if (b.length > 126) throw new Error(`header value too long for this encoder: ${s}`);
  return Buffer.concat([Buffer.from([b.length]), b]);
}

/** A request's header block: GET, http, `:path`, `:authority`, then `headers` as literal fields. */
function headerBlock(path, authority, headers) {
  const parts = [
    Buffer.from([0x82, 0x86]),
    Buffer.from([0x04]),
    str(path),
    Buffer.from([0x01]),
    str(authority),
  ];
  for (const [k, v] of Object.entries(headers))
    parts.push(Buffer.from([0x00]), str(k.toLowerCase()), str(String(v)));
  return Buffer.concat(parts);
}

const END_STREAM_HEADERS = 0x5;
const CANCEL = Buffer.from([0, 0, 0, 8]);

/**
 * Rapid reset with raw frames, as an attacker sends it: on one connection, `n` streams each written as its
 * HEADERS immediately followed by its RST_STREAM(CANCEL) in the same write (batches of `batch` pairs), then
 * one stream that is not reset (the sentinel, unless `sentinel` is false). Node's client cannot do this: it
 * sends the RST_STREAM of `request()` + `close()` in a later write. Resolves with the GOAWAY code the
 * server sent (null: none), the pairs written before it, and whether the sentinel got `:status 200`
 * (null: no answer).
 */
export function rapidReset(
  port,
  {
    n,
    path = "/rr",
    authority = "app.local",
    headers = {},
    sentinel = true,
    batch = 100,
    pauseMs = 1,
    maxMs = 20_000,
  },
) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.setNoDelay(true);
    let goaway = null;
    let sent = 0;
    let answered = null;
    let sentinelId = 0;
    let buf = Buffer.alloc(0);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ goaway, sent, sentinel: answered });
    };
    const timer = setTimeout(finish, maxMs);
    socket.on("error", () => {});
    socket.on("close", finish);
    socket.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3);
        if (buf.length < 9 + len) break;
        const type = buf[3];
        const flags = buf[4];
        const id = buf.readUInt32BE(5) & 0x7fffffff;
        const payload = buf.subarray(9, 9 + len);
        buf = buf.subarray(9 + len);
        if (type === 4 && !(flags & 1)) socket.write(frame(4, 1, 0, Buffer.alloc(0)));
        if (type === 7 && goaway === null) goaway = payload.readUInt32BE(4);
        // `:status: 200` is HPACK static entry 8, which servers send as the one byte 0x88.
        if (type === 1 && id === sentinelId && sentinelId !== 0) {
          answered = payload[0] === 0x88 ? 200 : -1;
          finish();
        }
      }
    });
    socket.once("connect", async () => {
      socket.write(Buffer.concat([Buffer.from(PREFACE, "latin1"), frame(4, 0, 0, Buffer.alloc(0))]));
      let id = 1;
      const block = (p) => headerBlock(p, authority, headers);
      while (sent < n && goaway === null && !socket.destroyed) {
        const chunk = [];
        for (let i = 0; i < batch && sent < n; i++, sent++, id += 2) {
          chunk.push(frame(1, END_STREAM_HEADERS, id, block(`${path}/${sent}`)), frame(3, 0, id, CANCEL));
        }
        if (!socket.write(Buffer.concat(chunk))) await new Promise((r) => socket.once("drain", r));
        // A moment between batches, so the server reads them as they come (an in-process server too):
        // more than 1000 resets in one read trip nghttp2's own limiter (GOAWAY INTERNAL_ERROR) first.
        if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      }
      if (sentinel && goaway === null && !socket.destroyed) {
        sentinelId = id;
        socket.write(frame(1, END_STREAM_HEADERS, id, block("/sentinel")));
      } else if (!sentinel) {
        // A flood waits for the server's answer to it (GOAWAY and close), at most maxMs.
      } else finish();
    });
  });
}

/**
 * Sends `streams` on one connection as raw frames in one write, interleaved in the given `order` (each entry
 * picks the stream whose next frame goes next; stream ids are given in order of first appearance, as HTTP/2
 * requires). A stream is `{ path, body: string[] (DATA frames; [] = END_STREAM on HEADERS), resetAfter:
 * number | null (RST_STREAM after that many of its DATA frames) }`. Resolves, once every stream that was
 * not reset is answered (or at `maxMs`), with each stream's answer: `:status` 200, another (-1), or null.
 */
export function h2Frames(port, { streams, order, authority = "app.local", maxMs = 5000 }) {
  return new Promise((resolve) => {
    const pending = streams.map((st) => {
      const out = [{ type: 1, flags: st.body.length === 0 ? END_STREAM_HEADERS : 0x4, path: st.path }];
      const data = st.resetAfter === null ? st.body : st.body.slice(0, st.resetAfter);
      data.forEach((d, i) => {
        const last = st.resetAfter === null && i === st.body.length - 1;
        out.push({ type: 0, flags: last ? 0x1 : 0, payload: Buffer.from(d) });
      });
      if (st.resetAfter !== null) out.push({ type: 3, flags: 0, payload: CANCEL });
      return out;
    });
    const ids = new Array(streams.length).fill(0);
    let next = 1;
    const wire = [Buffer.from(PREFACE, "latin1"), frame(4, 0, 0, Buffer.alloc(0))];
    let left = pending.reduce((n, p) => n + p.length, 0);
    for (let k = 0; left > 0; k++) {
      const live = pending.map((p, i) => [p, i]).filter(([p]) => p.length > 0);
      const [p, i] = live[(order[k % Math.max(order.length, 1)] ?? 0) % live.length];
      const f = p.shift();
      left--;
      if (ids[i] === 0) {
        ids[i] = next;
        next += 2;
      }
      const payload = f.type === 1 ? headerBlock(f.path, authority, {}) : f.payload;
      wire.push(frame(f.type, f.flags, ids[i], payload));
    }
    const answers = new Map();
    const waiting = new Set(streams.flatMap((st, i) => (st.resetAfter === null ? [ids[i]] : [])));
    const socket = net.connect(port, "127.0.0.1");
    let buf = Buffer.alloc(0);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(streams.map((_, i) => answers.get(ids[i]) ?? null));
    };
    const timer = setTimeout(finish, maxMs);
    socket.on("error", () => {});
    socket.on("close", finish);
    socket.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 9) {
        const len = buf.readUIntBE(0, 3);
        if (buf.length < 9 + len) break;
        const type = buf[3];
        const flags = buf[4];
        const id = buf.readUInt32BE(5) & 0x7fffffff;
        const payload = buf.subarray(9, 9 + len);
        buf = buf.subarray(9 + len);
        if (type === 4 && !(flags & 1)) socket.write(frame(4, 1, 0, Buffer.alloc(0)));
        if (type === 1 && !answers.has(id)) {
          answers.set(id, payload[0] === 0x88 ? 200 : -1);
          waiting.delete(id);
          if (waiting.size === 0) finish();
        }
      }
    });
    socket.once("connect", () => {
      socket.write(Buffer.concat(wire));
      if (waiting.size === 0) setTimeout(finish, 50);
    });
  });
}

/**
 * A connection that sends the HTTP/2 preface and nothing more (no SETTINGS, no stream): ms until the server
 * closed it, null if still open at `maxMs`.
 */
export function prefaceOnly(port, { maxMs }) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let t0 = 0;
    let timer;
    const done = (ms) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ms);
    };
    socket.on("error", () => {});
    socket.on("data", () => {});
    socket.on("close", () => done(Math.round(performance.now() - t0)));
    socket.once("connect", () => {
      t0 = performance.now();
      timer = setTimeout(() => done(null), maxMs);
      socket.write(PREFACE);
    });
  });
}

/**
 * A session that sends `headers` as one request (or none when null), then holds no stream: ms from then
 * until the server closed the session (GOAWAY and close), null if still open at `maxMs`.
 */
export async function idleSession(port, { headers = null, maxMs }) {
  const session = await h2Connect(port);
  session.on("error", () => {});
  if (headers) await h2Request(session, headers);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      session.destroy();
      resolve(null);
    }, maxMs);
    session.once("close", () => {
      clearTimeout(timer);
      resolve(Math.round(performance.now() - t0));
    });
  });
}

/**
 * An app on 127.0.0.1:`port` (0: any) speaking HTTP/1.1 and, unless `http1Only`, h2c prior knowledge on one
 * port, answering every request 200 with its protocol (a queue probe, `K-Network-Probe: queue`, with
 * `queue`, so it can stand in for a pod behind the activator), and counting requests whose path starts with
 * `/rr/` (the reset streams of {@link rapidReset}): `count()`, also as `GET /count` JSON `{ rr }`.
 */
export async function countApp({ port = 0, http1Only = false } = {}) {
  let rr = 0;
  const handler = (req, res) => {
    const path = req.url ?? "/";
    if (path.startsWith("/rr/")) rr++;
    // As a queue-proxy answers the activator's probe, so the app can stand in for a pod.
    const probe = req.headers["k-network-probe"] === "queue";
    const body = probe ? "queue" : path === "/count" ? JSON.stringify({ rr }) : `ok ${req.httpVersion}\n`;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/plain", "x-app-protocol": req.httpVersion });
      res.end(body);
    });
  };
  const h1 = createHttp1(handler);
  const h2 = http2.createServer({}, handler);
  const sockets = new Set();
  const front = net.createServer((socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    socket.once("data", (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      if (!http1Only && chunk.toString("latin1", 0, 3) === "PRI") h2.emit("connection", socket);
      else h1.emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
  });
  await new Promise((resolve) => front.listen(port, "127.0.0.1", resolve));
  return {
    port: front.address().port,
    count: () => rr,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        front.close(() => resolve());
      }),
  };
}

/**
 * The rapid-reset scenario against a server at `port` whose requests with `headers` reach an app counting
 * `/rr/` paths (`reached()`): `sessions` × `perSession` reset streams, each session ending with a normal
 * request; then a flood of `flood` resets on one session while another client's request is answered.
 * Returns the figures and each broken promise as a sentence.
 */
export async function rapidResetScenario(
  port,
  { label, authority, headers = {}, reached, sessions = 3, perSession = 100, flood = 5000 },
) {
  const problems = [];
  const target = { authority, headers };
  const h2headers = { ...headers, ":authority": authority };
  let sentinels = 0;
  for (let i = 0; i < sessions; i++) {
    const r = await rapidReset(port, { n: perSession, ...target });
    if (r.sentinel === 200) sentinels++;
    else
      problems.push(
        `session ${i}: the request after ${perSession} reset streams got ${r.sentinel} (GOAWAY ${r.goaway})`,
      );
  }
  const resetReached = await reached();
  if (resetReached !== 0)
    problems.push(`${resetReached} of ${sessions * perSession} reset streams reached the app`);
  const before = await reached();
  const t0 = performance.now();
  const floodRun = rapidReset(port, { n: flood, ...target, sentinel: false });
  const other = h2Request(port, { ...h2headers, ":path": "/other" }, { timeoutMs: 20_000 }).then(
    (r) => ({ status: r.status, ms: Math.round(performance.now() - t0) }),
    (err) => ({ status: 0, ms: Math.round(performance.now() - t0), err: err.message }),
  );
  const [f, o] = await Promise.all([floodRun, other]);
  // The other client is answered after the flood's session is gone: anything the flood forwarded is in by then.
  const after = await h2Request(port, { ...h2headers, ":path": "/after" }, { timeoutMs: 20_000 }).then(
    (r) => r.status,
    () => 0,
  );
  const floodReached = (await reached()) - before;
  process.stderr.write(
    `THAW-FIGURES ${JSON.stringify({ test: `${label} rapid reset`, resetStreams: sessions * perSession, resetReached, sentinels, flood: f.sent, floodGoaway: f.goaway, floodReached, otherStatus: o.status, otherMs: o.ms, afterStatus: after })}\n`,
  );
  if (f.goaway !== http2.constants.NGHTTP2_ENHANCE_YOUR_CALM)
    problems.push(`the flood of ${f.sent} resets got GOAWAY ${f.goaway}, not ENHANCE_YOUR_CALM (11)`);
  if (floodReached !== 0) problems.push(`${floodReached} streams of the flood reached the app`);
  if (o.status !== 200) problems.push(`another client during the flood got ${o.status} ${o.err ?? ""}`);
  if (after !== 200) problems.push(`a client after the flood got ${after}`);
  return { resetReached, floodReached, flood: f, other: o, problems };
}

/**
 * The idle-session scenario: a preface-only connection, a session that opens no stream and one left idle
 * after a request, all at once. The first two must be closed at `limitMs` (not before it, within 6 s after
 * it); the third too, or stay open when `idleAfterStream` is "open" (a queue-proxy keeps it, as Knative's
 * does). Then a new request must still be served. Prints a THAW-FIGURES line; returns what it saw.
 */
export async function idleSessionScenario(
  port,
  { label, limitMs, authority, headers = {}, idleAfterStream = "closed" },
) {
  const h2headers = { ":method": "GET", ":authority": authority, ...headers };
  const keptOpen = idleAfterStream === "open";
  const [preface, fresh, idle] = await Promise.all([
    prefaceOnly(port, { maxMs: limitMs * 4 }),
    idleSession(port, { maxMs: limitMs * 4 }),
    idleSession(port, { headers: { ...h2headers, ":path": "/one" }, maxMs: limitMs * (keptOpen ? 2 : 4) }),
  ]);
  process.stderr.write(
    `THAW-FIGURES ${JSON.stringify({ test: `${label} h2 idle`, limitMs, prefaceOnlyClosedMs: preface, noStreamClosedMs: fresh, idleAfterStreamClosedMs: idle })}\n`,
  );
  const problems = [];
  const closed = [
    ["preface-only connection", preface],
    ["session without streams", fresh],
    ...(keptOpen ? [] : [["session idle after a stream", idle]]),
  ];
  for (const [what, ms] of closed) {
    if (ms === null) problems.push(`${what} still open after ${limitMs * 4} ms`);
    else if (ms < limitMs - 100 || ms >= limitMs + 6000)
      problems.push(`${what} closed after ${ms} ms, not near the ${limitMs} ms limit`);
  }
  if (keptOpen && idle !== null)
    problems.push(`session idle after a stream closed after ${idle} ms; it must stay open`);
  const still = await h2Request(port, { ...h2headers, ":path": "/still" }).then(
    (r) => r.status,
    (err) => `${err.message}`,
  );
  if (still !== 200) problems.push(`a request after the idle sessions got ${still}`);
  return { prefaceOnlyClosedMs: preface, noStreamClosedMs: fresh, idleAfterStreamClosedMs: idle, problems };
}
