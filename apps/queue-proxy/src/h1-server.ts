/**
 * The serving port's HTTP/1.x server. Node's `http.Server` built two objects per request with dozens of
 * fields and checked every response field again; this one reads the request with `H1RequestParser`
 * and writes each response head together with the first body bytes in one `write`, so the proxy's
 * per-request cost is mostly the two sockets. Behaviour follows Go's server, which Knative's
 * queue-proxy runs on: keep-alive without idle timeout, a head read within `headersTimeoutMs`,
 * 100 Continue sent when the body is first read, an unread request body discarded up to 256 KiB after
 * the response (beyond that the connection closes), pipelined requests answered in order.
 */
import { STATUS_CODES } from "node:http";
import type net from "node:net";
import { type Duplex, Readable } from "node:stream";
import { ClientProtocolError, H1RequestParser, type RequestEvents } from "./h1-request-parser.js";
import type { Downstream } from "./ports.js";

/** An upgrade request as the upgrade handler needs it (a subset of Node's `IncomingMessage`). */
export interface UpgradeRequest {
  method: string;
  url: string;
  rawHeaders: string[];
}

export interface H1ServerHandlers {
  /** A request: answer through `d`; `rawHeaders` are the fields as received. */
  request(d: Downstream, rawHeaders: string[]): void;
  /** An upgrade request: the socket is the handler's from now on; `head` = bytes read after the head. */
  upgrade(req: UpgradeRequest, socket: Duplex, head: Buffer): void;
}

export interface H1ServerOptions {
  /** Time from a request head's first byte to its end (Go's ReadHeaderTimeout); 408 and close after. */
  headersTimeoutMs: number;
  /** Largest request head (431 beyond). */
  maxHeadBytes?: number;
}

/** Unread request body read and dropped after the response before the connection closes instead (Go). */
const DISCARD_LIMIT = 256 * 1024;
/** Bytes of later (pipelined) requests kept while one is answered before reading pauses. */
const PIPELINE_LIMIT = 64 * 1024;
/** Responses up to this size go out as one buffer: head and body in one write. */
const COALESCE_LIMIT = 16 * 1024;
/** How long a connection closed after its response may linger half-closed so the client reads it all. */
const LINGER_MS = 1000;

// Response framings.
const NONE = 0;
const LENGTH = 1;
const CHUNKED = 2;
const CLOSE = 3;

export class H1Server {
  readonly connections = new Set<H1Connection>();
  /** Shutting down: every response closes its connection. */
  closing = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly handlers: H1ServerHandlers,
    readonly options: H1ServerOptions,
  ) {
    this.timer = setInterval(() => this.checkHeads(), Math.min(1000, options.headersTimeoutMs));
    this.timer.unref();
  }

  /** Serves `socket`, whose first bytes are `first`. */
  accept(socket: net.Socket, first: Buffer): void {
    const conn = new H1Connection(this, socket);
    this.connections.add(conn);
    conn.onData(first);
  }

  /**
   * Closes connections between requests once what was written to them has gone out; the others close
   * after their current response.
   */
  closeIdle(): void {
    this.closing = true;
    for (const c of this.connections) if (c.idle) c.closeAfterWrite();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private checkHeads(): void {
    const deadline = Date.now() - this.options.headersTimeoutMs;
    for (const c of this.connections) if (c.headSince > 0 && c.headSince < deadline) c.refuse(408, "");
  }
}

/** One client connection: one request answered at a time. */
class H1Connection implements RequestEvents {
  readonly parser: H1RequestParser;
  /** The request being answered. */
  reply: H1Reply | null = null;
  closed = false;
  /** When the head being read began to arrive (0 = not reading a head). */
  headSince = 0;
  /** Bytes read but not parsed yet (a pipelined request waiting for the current answer), in order. */
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private pumping = false;
  /** The client is not reading its responses: the next request waits for the socket to drain. */
  private waitDrain = false;
  private upgrading = false;
  /** The request body's reader is full: reading waits for it. */
  private bodyFull = false;
  private paused = false;
  /** >= 0: dropping the rest of an answered request's body; bytes dropped so far. */
  private discarded = -1;

  constructor(
    readonly server: H1Server,
    readonly socket: net.Socket,
  ) {
    this.parser = new H1RequestParser(this, server.options.maxHeadBytes);
    socket.on("data", this.onData);
    socket.on("drain", this.onDrain);
    socket.on("close", this.onClose);
    socket.on("error", this.onError);
  }

  get idle(): boolean {
    return !this.closed && this.reply === null && !this.parser.busy && this.bufferedBytes === 0;
  }

  readonly onData = (chunk: Buffer): void => {
    if (this.closed) return;
    this.buffered.push(chunk);
    this.bufferedBytes += chunk.length;
    this.pump();
  };

  /** All buffered bytes as one buffer (a copy only when several reads wait). */
  private takeBuffered(): Buffer {
    const data = this.buffered.length === 1 ? (this.buffered[0] as Buffer) : Buffer.concat(this.buffered);
    this.buffered = [];
    this.bufferedBytes = 0;
    return data;
  }

  /** Feeds what was read to the parser, one request at a time. */
  private pump(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      while (this.bufferedBytes > 0 && !this.closed) {
        const { parser } = this;
        // The next request waits until this one is answered and its response has been taken.
        if (!parser.busy && (this.reply !== null || this.waitDrain)) break;
        let data = this.takeBuffered();
        if (!parser.busy) {
          // Empty lines before a request line are ignored (RFC 9112 2.2).
          let skip = 0;
          while (skip < data.length && (data[skip] === 0x0d || data[skip] === 0x0a)) skip++;
          if (skip === data.length) break;
          if (skip > 0) data = data.subarray(skip);
          parser.start();
        }
        const used = parser.feed(data);
        // A head that did not come whole in one read starts the head timeout (most never need the clock).
        if (parser.inHead && this.headSince === 0) this.headSince = Date.now();
        if (used < data.length) {
          this.buffered.push(data.subarray(used));
          this.bufferedBytes = data.length - used;
        }
        if (this.upgrading) {
          this.handOver();
          return;
        }
      }
    } catch (err) {
      if (!(err instanceof ClientProtocolError)) {
        this.socket.destroy();
        throw err;
      }
      // A broken body while the exchange runs (the client is treated as gone) or after its answer: just close.
      if (this.reply !== null || this.discarded >= 0) this.socket.destroy();
      else this.refuse(err.status, err.message);
    } finally {
      this.pumping = false;
    }
    this.flow();
  }

  /** Pauses reading while the body reader is full or too many pipelined bytes wait. */
  private flow(): void {
    const stop = this.bodyFull || this.waitDrain || this.bufferedBytes > PIPELINE_LIMIT;
    if (stop === this.paused || this.closed) return;
    this.paused = stop;
    if (stop) this.socket.pause();
    else this.socket.resume();
  }

  head(): void {
    const p = this.parser;
    this.headSince = 0;
    if (p.upgrade) {
      this.upgrading = true;
      return;
    }
    const reply = new H1Reply(this, p.method, p.target, p.http10, p.keepAlive);
    if (p.hasBody) reply.body = this.bodyReader(reply);
    reply.continued = !p.expectContinue;
    this.reply = reply;
    this.server.handlers.request(reply, p.rawHeaders);
  }

  body(chunk: Buffer): void {
    if (this.closed) return;
    if (this.discarded >= 0) {
      this.discarded += chunk.length;
      if (this.discarded > DISCARD_LIMIT) this.closeAfterWrite();
      return;
    }
    const body = this.reply?.body;
    if (body && !body.push(chunk)) this.bodyFull = true;
  }

  end(): void {
    if (this.discarded >= 0) this.discarded = -1;
    else this.reply?.body?.push(null);
  }

  /** The request body as a stream; reading it sends `100 Continue` first when the client waits for one. */
  private bodyReader(reply: H1Reply): Readable {
    return new Readable({
      highWaterMark: 64 * 1024,
      read: () => {
        if (!reply.continued) {
          reply.continued = true;
          if (!reply.headersSent && !this.closed)
            this.socket.write("HTTP/1.1 100 Continue\r\n\r\n", "latin1");
        }
        if (this.bodyFull) {
          this.bodyFull = false;
          this.flow();
        }
      },
    });
  }

  /** Writes body bytes, with the response head if it is still pending; false when the socket is full. */
  send(head: string | null, chunk: Buffer, chunked: boolean): boolean {
    const { socket } = this;
    if (head === null && !chunked) return socket.write(chunk);
    const lead = chunked ? `${head ?? ""}${chunk.length.toString(16)}\r\n` : (head as string);
    const size = lead.length + chunk.length + (chunked ? 2 : 0);
    if (size <= COALESCE_LIMIT) {
      const buf = Buffer.allocUnsafe(size);
      buf.write(lead, 0, "latin1");
      chunk.copy(buf, lead.length);
      if (chunked) buf.write("\r\n", size - 2, "latin1");
      return socket.write(buf);
    }
    socket.cork();
    socket.write(lead, "latin1");
    let ok = socket.write(chunk);
    if (chunked) ok = socket.write("\r\n", "latin1");
    socket.uncork();
    return ok;
  }

  /** The response to `reply` was written in full. */
  replyDone(reply: H1Reply): void {
    if (this.reply !== reply) return;
    this.reply = null;
    this.parser.release();
    if (!reply.keepAlive || this.server.closing) {
      this.closeAfterWrite();
      return;
    }
    if (this.parser.inBody) {
      // Answered before the body was read: drop the rest of it.
      reply.body?.destroy();
      this.bodyFull = false;
      this.discarded = 0;
    }
    // A client that does not read its responses gets no more until it does (as Node's server did).
    if (this.socket.writableNeedDrain) this.waitDrain = true;
    if (this.bufferedBytes === 0) this.flow();
    // A pipelined request starts on the next turn, after this exchange has given back its breaker slot
    // and upstream connection.
    else setImmediate(this.resumeReading);
  }

  private readonly resumeReading = (): void => {
    this.pump();
  };

  /** Answers a request the server refuses itself, then closes. */
  refuse(status: number, message: string): void {
    if (this.closed || this.reply !== null) return;
    const reason = STATUS_CODES[status] ?? "Unknown";
    this.socket.write(
      closingAnswer(status, message === "" ? `${status} ${reason}\n` : `${status} ${reason}: ${message}\n`),
    );
    this.closeAfterWrite();
  }

  /** Ends the connection once what was written has gone out; a client that never closes is cut later. */
  closeAfterWrite(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffered = [];
    this.bufferedBytes = 0;
    const { socket } = this;
    // Once everything written has been handed to the kernel, half-close and keep reading (and dropping)
    // for a moment, so the client is not reset before it has read the answer.
    socket.end(() => setTimeout(() => socket.destroy(), LINGER_MS).unref());
    socket.resume();
  }

  private handOver(): void {
    const p = this.parser;
    const rest = this.takeBuffered();
    this.closed = true;
    this.server.connections.delete(this);
    const { socket } = this;
    socket.off("data", this.onData);
    socket.off("drain", this.onDrain);
    socket.off("close", this.onClose);
    socket.off("error", this.onError);
    // Bytes arriving before the handler reads the socket must wait for it, not flow away.
    socket.pause();
    this.server.handlers.upgrade({ method: p.method, url: p.target, rawHeaders: p.rawHeaders }, socket, rest);
  }

  private readonly onDrain = (): void => {
    if (this.waitDrain) {
      this.waitDrain = false;
      this.pump();
      return;
    }
    this.reply?.onDrain?.();
  };

  private readonly onClose = (): void => {
    this.closed = true;
    this.server.connections.delete(this);
    this.parser.release();
    const reply = this.reply;
    this.reply = null;
    if (reply === null || reply.finished) return;
    reply.finished = true;
    reply.body?.destroy();
    reply.onClose?.();
  };

  private readonly onError = (): void => {
    this.socket.destroy();
  };
}

/** One request on an `H1Connection` and its response. */
class H1Reply implements Downstream {
  body: Readable | null = null;
  onClose: (() => void) | null = null;
  onDrain: (() => void) | null = null;
  headersSent = false;
  responseLength = "";
  /** The response was written in full, cut off, or the client went away. */
  finished = false;
  /** No `100 Continue` is owed: it was sent, or the client did not ask for one. */
  continued = true;
  readonly http2 = false;
  private head: string | null = null;
  private framing = NONE;

  constructor(
    private readonly conn: H1Connection,
    readonly method: string,
    readonly target: string,
    private readonly http10: boolean,
    /** The connection carries another request after this one. */
    public keepAlive: boolean,
  ) {}

  get protocol(): string {
    return this.http10 ? "HTTP/1.0" : "HTTP/1.1";
  }

  get remoteAddress(): string {
    return this.conn.socket.remoteAddress ?? "";
  }

  get localAddress(): string {
    return this.conn.socket.localAddress ?? "";
  }

  get closed(): boolean {
    return this.finished || this.conn.closed;
  }

  writeHead(status: number, headers: string[]): void {
    if (this.headersSent) return;
    this.headersSent = true;
    let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\n`;
    let hasDate = false;
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i] as string;
      const value = headers[i + 1] as string;
      const c = name.charCodeAt(0) | 0x20;
      if (c === 0x63 && name.length === 14 && name.toLowerCase() === "content-length")
        this.responseLength = value;
      else if (c === 0x64 && name.length === 4 && name.toLowerCase() === "date") hasDate = true;
      head += `${name}: ${value}\r\n`;
    }
    if (this.method === "HEAD" || status === 204 || status === 304 || status < 200) this.framing = NONE;
    else if (this.responseLength !== "") this.framing = LENGTH;
    else if (!this.http10) {
      this.framing = CHUNKED;
      head += "transfer-encoding: chunked\r\n";
    } else {
      this.framing = CLOSE;
      this.keepAlive = false;
    }
    // Shutting down, or the client still waits for a 100 Continue and may never send its body: close after.
    if (this.conn.server.closing || !this.continued) this.keepAlive = false;
    if (!this.keepAlive) {
      if (!this.http10) head += "connection: close\r\n";
    } else if (this.http10) head += "connection: keep-alive\r\n";
    if (!hasDate) head += `date: ${httpDate()}\r\n`;
    this.head = `${head}\r\n`;
  }

  write(chunk: Buffer): boolean {
    if (this.closed) return true;
    if (!this.headersSent) this.writeHead(200, []);
    if (this.framing === NONE || chunk.length === 0) return true;
    const head = this.head;
    this.head = null;
    return this.conn.send(head, chunk, this.framing === CHUNKED);
  }

  end(body?: string | Buffer): void {
    if (this.closed) return;
    if (!this.headersSent) this.writeHead(200, []);
    if (body !== undefined && body.length > 0)
      this.write(typeof body === "string" ? Buffer.from(body) : body);
    let rest = this.head ?? "";
    this.head = null;
    if (this.framing === CHUNKED) rest += "0\r\n\r\n";
    if (rest !== "") this.conn.socket.write(rest, "latin1");
    this.finished = true;
    this.conn.replyDone(this);
  }

  destroy(): void {
    if (this.closed) return;
    this.finished = true;
    this.conn.socket.destroy();
  }
}

let dateSecond = -1;
let dateText = "";

/** The `Date` field for responses whose app gave none, made once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** A whole plain-text answer that closes the connection, for answers written straight to a socket. */
export function closingAnswer(status: number, body: string): string {
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Unknown"}\r\ncontent-type: text/plain; charset=utf-8\r\nconnection: close\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}
