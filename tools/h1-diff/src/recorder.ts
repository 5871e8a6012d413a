/**
 * A plain Node `http` server that records every message it parses, per connection and in arrival order,
 * and every refusal. It plays both sides of a differential run: the reference (raw bytes straight in)
 * and the app behind the target (what the target forwarded). It refuses every upgrade (answers it like
 * any request, no 101) and llhttp goes on reading the connection as HTTP after it (`replayUpgrade`), so
 * the requests that follow a refused upgrade have a reference view too.
 */
import http from "node:http";
import net, { type AddressInfo, type Socket } from "node:net";
import type { Message, Rejection } from "./message.js";

/** What one connection to the recorder carried. */
export interface ConnectionLog {
  socket: Socket;
  messages: Message[];
  rejection: Rejection | null;
  closed: boolean;
  /** A refused upgrade is being read on through its replay connection: its message is not recorded yet. */
  replaying: boolean;
}

/** A running recorder. */
export interface Recorder {
  readonly port: number;
  /** Connections by the client's port (the harness's own end of a reference connection). */
  readonly connections: Map<number, ConnectionLog>;
  /** Every message since `reset`, over all connections, in the order the heads arrived. */
  readonly messages: Message[];
  /** Every refusal since `reset`. */
  readonly rejections: Rejection[];
  /** Forgets the messages and refusals recorded so far (between cases). */
  reset(): void;
  close(): Promise<void>;
}

/** Options of {@link startRecorder}. */
export interface RecorderOptions {
  /** Answers a request itself and keeps it out of the record (e.g. a target's readiness probes) when true. */
  intercept?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
}

/** Starts a recorder on 127.0.0.1 (a free port); it answers every request `200` with an empty body. */
export async function startRecorder(options: RecorderOptions = {}): Promise<Recorder> {
  const connections = new Map<number, ConnectionLog>();
  const sockets = new Set<Socket>();
  let messages: Message[] = [];
  let rejections: Rejection[] = [];
  /** Replay connections (by their client port) and the connection whose log they write to. */
  const replays = new Map<number, { log: ConnectionLog; upgrade: [string, string][] }>();
  /**
   * Each server-side socket's log, bound by identity when the connection arrives (keyed by the client's
   * port as it was then: a socket's port reads undefined once it is closed, and ports are reused).
   */
  const logs = new WeakMap<Socket, ConnectionLog>();
  const logOf = (socket: Socket): ConnectionLog => {
    let log = logs.get(socket);
    if (log === undefined) {
      log = { socket, messages: [], rejection: null, closed: false, replaying: false };
      connections.set(socket.remotePort ?? 0, log);
      logs.set(socket, log);
    }
    return log;
  };
  // No Host check of Node's own: llhttp reads a request without one, and that is what is compared.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    if (options.intercept?.(req, res)) return;
    let headers: [string, string][] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string]);
    }
    // The replayed head of a refused upgrade: recorded with the fields it came with.
    // Its connection writes to the refused upgrade's log from here on.
    const replay = headers.some(([n]) => n.toLowerCase() === REPLAYED)
      ? replays.get(req.socket.remotePort ?? 0)
      : undefined;
    if (replay !== undefined) {
      headers = replay.upgrade;
      const own = logs.get(req.socket);
      if (own !== undefined && connections.get(req.socket.remotePort ?? 0) === own) {
        connections.delete(req.socket.remotePort ?? 0);
      }
      logs.set(req.socket, replay.log);
      replay.log.replaying = false;
    }
    const message: Message = {
      method: req.method ?? "",
      target: req.url ?? "",
      version: req.httpVersion,
      headers,
      body: "",
      complete: false,
    };
    logOf(req.socket).messages.push(message);
    messages.push(message);
    req.setEncoding("latin1");
    req.on("data", (chunk: string) => {
      message.body += chunk;
    });
    req.on("end", () => {
      message.complete = true;
      res.writeHead(200, { "content-length": "0" });
      res.end();
    });
    req.on("error", () => {});
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    const log = logOf(socket);
    socket.once("close", () => {
      log.closed = true;
      sockets.delete(socket);
    });
  });
  server.on("clientError", (err: Error & { code?: string; reason?: string }, socket) => {
    // The sender stopped inside a message (a target cutting its upstream request): not a parse refusal.
    if (err.code === "HPE_INVALID_EOF_STATE" || err.code === "ECONNRESET") {
      socket.destroy();
      return;
    }
    const rejection = { code: err.code ?? "ERR", reason: err.reason ?? err.message };
    logOf(socket as Socket).rejection = rejection;
    rejections.push(rejection);
    const status =
      err.code === "HPE_HEADER_OVERFLOW" ? "431 Request Header Fields Too Large" : "400 Bad Request";
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    else socket.destroy();
  });
  server.on("upgrade", (req: http.IncomingMessage, socket: Socket, head: Buffer) => {
    // Until the replayed head is recorded (or the replay ends), this connection has not settled.
    const log = logOf(socket);
    log.replaying = true;
    replayUpgrade((server.address() as AddressInfo).port, req, socket, head, (inner, upgrade) => {
      replays.set(inner.localPort ?? 0, { log, upgrade });
      inner.once("close", () => {
        replays.delete(inner.localPort ?? 0);
        log.replaying = false;
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    get messages() {
      return messages;
    },
    get rejections() {
      return rejections;
    },
    reset() {
      messages = [];
      rejections = [];
      for (const [port, log] of connections) if (log.closed) connections.delete(port);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The field that marks a refused upgrade's replayed head (never sent by a case). */
const REPLAYED = "x-h1-diff-replayed-upgrade";

/**
 * A refused upgrade, read on as HTTP by llhttp itself: its head again without the `Upgrade` field (so llhttp
 * sees a plain request, framing its body by the same fields), then every byte the client sent after the
 * head, on a loopback connection to the same server, whose answers go back to the client.
 */
function replayUpgrade(
  port: number,
  req: http.IncomingMessage,
  socket: Socket,
  head: Buffer,
  register: (inner: Socket, upgrade: [string, string][]) => void,
): void {
  const upgrade: [string, string][] = [];
  let text = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    upgrade.push([name, value]);
    if (name.toLowerCase() !== "upgrade") text += `${name}: ${value}\r\n`;
  }
  text += `${REPLAYED}: 1\r\n\r\n`;
  socket.pause();
  const inner = net.connect({ host: "127.0.0.1", port }, () => {
    register(inner, upgrade);
    inner.write(text, "latin1");
    if (head.length > 0) inner.write(head);
    socket.pipe(inner);
    inner.pipe(socket);
    socket.resume();
  });
  inner.on("error", () => socket.destroy());
  socket.on("error", () => inner.destroy());
  socket.once("close", () => inner.destroy());
  inner.once("close", () => socket.destroy());
}
