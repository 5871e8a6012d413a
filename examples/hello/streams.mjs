// The sample app's two long-lived answers, with no dependencies: a bounded server-sent event stream and a
// websocket echo. They let you watch streams go through Thaw and stay whole while a pod drains
// (tools/real-cluster's ingress test deletes the pod under them).
import { createHash } from "node:crypto";

/** Largest websocket frame payload the echo takes; a bigger one closes the connection (1009). */
const MAX_FRAME = 65_535;
const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** `name`'s whole-number query value in [min, max], `fallback` when absent; a string naming the fault when bad. */
function queryInt(url, name, fallback, min, max) {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  return Number.isInteger(n) && n >= min && n <= max
    ? n
    : `${name} must be a whole number in [${min}, ${max}], got ${JSON.stringify(raw)}`;
}

/**
 * GET /sse?n=&gapMs=: `n` events (`id: i`, `data: {"pid","i"}`), one every `gapMs`, then the end. The
 * events go out as written: `X-Accel-Buffering: no` keeps nginx from holding them back.
 */
export function serveEvents(url, res, pod) {
  const n = queryInt(url, "n", 5, 1, 1000);
  const gapMs = queryInt(url, "gapMs", 100, 0, 10_000);
  const bad = [n, gapMs].find((v) => typeof v === "string");
  if (bad) {
    res.writeHead(400, { "content-type": "text/plain" }).end(`${bad}\n`);
    return;
  }
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-store",
    "x-accel-buffering": "no",
  });
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    res.write(`id: ${i}\ndata: ${JSON.stringify({ pid: pod, i })}\n\n`);
    if (++i < n) setTimeout(next, gapMs);
    else res.end();
  };
  next();
}

/** A frame with `first` as its first byte (FIN and opcode) and `payload`, unmasked as a server sends it. */
function frame(first, payload) {
  const len = payload.length;
  const head = len < 126 ? Buffer.from([first, len]) : Buffer.from([first, 126, len >> 8, len & 0xff]); // len <= MAX_FRAME, 16 bits
  return Buffer.concat([head, payload]);
}

/** The first whole frame in `buf`: its first byte, unmasked payload and size; null if incomplete; "big" past MAX_FRAME. */
function parseFrame(buf) {
  if (buf.length < 2) return null;
  const masked = (buf[1] & 0x80) !== 0;
  let len = buf[1] & 0x7f;
  let at = 2;
  if (len === 126) {
    if (buf.length < 4) return null;
    len = buf.readUInt16BE(2);
    at = 4;
  } else if (len === 127) return "big";
  if (len > MAX_FRAME) return "big";
  const maskAt = at;
  if (masked) at += 4;
  if (buf.length < at + len) return null;
  const payload = Buffer.from(buf.subarray(at, at + len));
  if (masked) for (let i = 0; i < len; i++) payload[i] ^= buf[maskAt + (i % 4)];
  return { first: buf[0], payload, size: at + len };
}

/**
 * Upgrade to a websocket that echoes every data frame as it came (text or binary, fragments kept), answers
 * pings and closes when the client does.
 */
export function acceptWebsocket(req, socket, pod) {
  const key = req.headers["sec-websocket-key"];
  if (String(req.headers.upgrade).toLowerCase() !== "websocket" || typeof key !== "string") {
    socket.end("HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    return;
  }
  const accept = createHash("sha1")
    .update(key + WS_GUID)
    .digest("base64");
  socket.write(
    "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n" +
      `sec-websocket-accept: ${accept}\r\nx-app-pid: ${pod}\r\n\r\n`,
  );
  let buf = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    buf = Buffer.concat([buf, chunk]);
    for (let f = parseFrame(buf); f !== null; f = parseFrame(buf)) {
      if (f === "big") {
        socket.end(frame(0x88, Buffer.from([0x03, 0xf1]))); // 1009: message too big
        return;
      }
      buf = buf.subarray(f.size);
      const opcode = f.first & 0x0f;
      if (opcode === 0x8) {
        socket.end(frame(0x88, f.payload.subarray(0, 2)));
        return;
      }
      if (opcode === 0x9) socket.write(frame(0x8a, f.payload));
      else if (opcode <= 0x2) socket.write(frame(f.first, f.payload));
    }
  });
  socket.on("error", () => socket.destroy());
}
