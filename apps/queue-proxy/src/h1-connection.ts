/**
 * One client connection of the serving port's HTTP/1.x server: feeds what is read to the request parser,
 * one request at a time (pipelined ones wait for the answer before them), and writes the answers.
 */
import type net from "node:net";
import { Readable } from "node:stream";
import { H1Reply, refusal } from "./h1-reply.js";
import { ClientProtocolError, H1RequestParser, type RequestEvents } from "./h1-request-parser.js";
import type { H1Server, TakenOver } from "./h1-server.js";
import { readAsStream, readShared } from "./shared-reads.js";

/** Unread request body read and dropped after the response before the connection closes instead (Go). */
const DISCARD_LIMIT = 256 * 1024;
/** Bytes of later (pipelined) requests kept while one is answered before reading pauses. */
const PIPELINE_LIMIT = 64 * 1024;
/** Responses up to this size go out as one buffer: head and body in one write. */
const COALESCE_LIMIT = 16 * 1024;
/** How long a connection closed after its response may linger half-closed so the client reads it all. */
const LINGER_MS = 1000;

/** One client connection: one request answered at a time. */
export class H1Connection implements RequestEvents {
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
  /** The request body's reader is full: reading waits for it. */
  private bodyFull = false;
  private paused = false;
  /** >= 0: dropping the rest of an answered request's body; bytes dropped so far. */
  private discarded = -1;
  /** Reads are views of a buffer the next read reuses (`readShared`): what is kept is copied. */
  private readonly shared: boolean;

  constructor(
    readonly server: H1Server,
    readonly socket: net.Socket,
  ) {
    this.parser = new H1RequestParser(this, server.options.maxHeadBytes);
    this.shared = readShared(socket, this.onSharedRead);
    if (!this.shared) socket.on("data", this.onData);
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

  /** A read that is a view of the shared buffer: the bytes left waiting (a pipelined request) are copied. */
  private readonly onSharedRead = (chunk: Buffer): void => {
    this.onData(chunk);
    const { buffered } = this;
    for (let i = 0; i < buffered.length; i++) {
      const b = buffered[i] as Buffer;
      if (b.buffer === chunk.buffer) buffered[i] = Buffer.from(b);
    }
  };

  /** All buffered bytes as one buffer (a copy only when several reads wait). */
  private takeBuffered(): Buffer {
    // Emptied in place: a new array per read is garbage on the hot path. The usual single read is popped,
    // which the JIT inlines, where setting `length` is a runtime call.
    let data: Buffer;
    if (this.buffered.length === 1) data = this.buffered.pop() as Buffer;
    else {
      data = Buffer.concat(this.buffered);
      this.buffered.length = 0;
    }
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
      }
    } catch (err) {
      if (!(err instanceof ClientProtocolError)) {
        this.socket.destroy();
        throw err;
      }
      this.refuse(err.status, err.message);
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
    const reply = new H1Reply(this, p.method, p.target, p.bodyFraming, p.http10, p.keepAlive);
    if (p.hasBody) reply.body = this.bodyReader(reply);
    reply.continued = !p.expectContinue;
    this.reply = reply;
    if (p.upgrade) this.server.handlers.upgrade(reply, p.rawHeaders, this.takeOver);
    else this.server.handlers.request(reply, p.rawHeaders);
  }

  body(chunk: Buffer): void {
    if (this.closed) return;
    if (this.discarded >= 0) {
      this.discarded += chunk.length;
      if (this.discarded > DISCARD_LIMIT) this.closeAfterWrite();
      return;
    }
    const reply = this.reply;
    if (reply === null || reply.body === null) return;
    // The client sends its body without waiting: no 100 Continue is owed any more (RFC 9110 10.1.1).
    reply.continued = true;
    if (!reply.body.push(this.shared ? Buffer.from(chunk) : chunk)) this.bodyFull = true;
  }

  end(): void {
    if (this.discarded >= 0) this.discarded = -1;
    else if (this.reply !== null) {
      // The whole request is in: no 100 Continue is owed, whatever the client asked for.
      this.reply.continued = true;
      this.reply.body?.push(null);
    }
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
  send(head: Buffer | null, chunk: Buffer, chunked: boolean): boolean {
    const { socket } = this;
    // `chunk` may be a view of a buffer the next read reuses (`Downstream.write`): the socket keeps a copy.
    if (head === null && !chunked) return socket.write(Buffer.from(chunk));
    const sizeLine = chunked ? `${chunk.length.toString(16)}\r\n` : "";
    const lead = head === null ? 0 : head.length;
    const size = lead + sizeLine.length + chunk.length + (chunked ? 2 : 0);
    if (size <= COALESCE_LIMIT) {
      const buf = Buffer.allocUnsafe(size);
      if (head !== null) head.copy(buf, 0);
      let at = lead + buf.write(sizeLine, lead, "latin1");
      at += chunk.copy(buf, at);
      if (chunked) buf.write("\r\n", at, "latin1");
      return socket.write(buf);
    }
    socket.cork();
    if (head !== null) socket.write(head);
    if (chunked) socket.write(sizeLine, "latin1");
    let ok = socket.write(Buffer.from(chunk));
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

  /**
   * Answers a request the server refuses itself, then closes. A request whose body turns out broken
   * after its exchange began ends that exchange first (as if the client had gone), then gets the same
   * answer if no response has started; after an answer began, all that is left is to cut it off.
   */
  refuse(status: number, message: string): void {
    if (this.closed) return;
    const reply = this.reply;
    if (reply !== null) {
      this.reply = null;
      const started = reply.headersSent;
      reply.abandon();
      if (started) {
        this.socket.destroy();
        return;
      }
    } else if (this.discarded >= 0) {
      // The answer went out already; the rest of its body is broken: nothing more to say.
      this.socket.destroy();
      return;
    }
    this.socket.write(refusal(status, message));
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

  /** The app switched protocols: the socket leaves this server with the bytes read after the request. */
  private readonly takeOver = (): TakenOver => {
    // The bytes after the request are only all buffered once the read that carried its head is parsed.
    if (this.pumping) throw new Error("takeOver called while the request head is being read");
    const head = this.takeBuffered();
    this.closed = true;
    this.reply = null;
    this.server.connections.delete(this);
    const { socket } = this;
    socket.off("data", this.onData);
    socket.off("drain", this.onDrain);
    socket.off("close", this.onClose);
    socket.off("error", this.onError);
    readAsStream(socket);
    // Bytes arriving before the handler reads the socket must wait for it, not flow away.
    socket.pause();
    return { socket, head };
  };

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
    reply?.abandon();
  };

  private readonly onError = (): void => {
    this.socket.destroy();
  };
}
