/**
 * A plain Node `http` server that records every message it parses, per connection and in arrival order,
 * and every refusal. It plays both sides of a differential run: the reference (raw bytes straight in)
 * and the app behind the target (what the target forwarded).
 */
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Message, Rejection } from "./message.js";

/** What one connection to the recorder carried. */
export interface ConnectionLog {
  socket: Socket;
  messages: Message[];
  rejection: Rejection | null;
  closed: boolean;
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
  const logOf = (socket: Socket): ConnectionLog => {
    const port = socket.remotePort ?? 0;
    let log = connections.get(port);
    if (log === undefined || log.socket !== socket) {
      log = { socket, messages: [], rejection: null, closed: false };
      connections.set(port, log);
    }
    return log;
  };
  // No Host check of Node's own: llhttp reads a request without one, and that is what is compared.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    if (options.intercept?.(req, res)) return;
    const headers: [string, string][] = [];
    for (let i = 0; i < req.rawHeaders.length; i += 2) {
      headers.push([req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string]);
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
