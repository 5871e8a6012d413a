import net from "node:net";
import type { Readable } from "node:stream";
import { type DialPolicy, dialWithRetry, KNATIVE_DIAL_POLICY } from "./dial.js";
import { isHostName } from "./h1-fields.js";
import { H1ResponseParser, type ResponseEvents } from "./h1-response-parser.js";
import { BODY_CHUNKED, BODY_NONE, type UpstreamSink } from "./ports.js";
import type { ResponseFields } from "./response-fields.js";
import { READ_BUFFER } from "./shared-reads.js";
import { holdForTurn } from "./turn-writes.js";

/** One request for the user container. */
export interface UpstreamRequest {
  method: string;
  path: string;
  /** Flat [name, value, ...], hop-by-hop fields already removed. */
  headers: string[];
  /** The request body: a stream, bytes in hand (`framing` then is their length), or null when there is none. */
  body: Readable | Uint8Array | null;
  /** The parsed request's framing (`Downstream.bodyFraming`): `headers` carry no framing field of their own. */
  framing: number;
}

/** The framing field line for a request body framed as `framing` (`Downstream.bodyFraming`). */
export function framingField(framing: number): string {
  if (framing === BODY_CHUNKED) return "transfer-encoding: chunked\r\n";
  return framing === BODY_NONE ? "" : `content-length: ${framing}\r\n`;
}

/** Upstream connections kept per c.3: containerConcurrency, or 1000 when unlimited. */
export function poolSizeFor(containerConcurrency: number): number {
  return containerConcurrency > 0 ? containerConcurrency : 1000;
}

/** How long an idle connection is kept when the app gives no `Keep-Alive: timeout` hint. */
export const IDLE_KEEP_MS = 60_000;
/** Margin before the app's own keep-alive timeout, so a connection it is about to close is not reused. */
const HINT_MARGIN_MS = 1000;

// Go's transport replays these on a fresh connection when a reused one fails before any response byte.
const REPLAYABLE = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

/** A request waiting for, or holding, a connection. */
class Pending {
  conn: Connection | null = null;
  cancelled = false;
  retried = false;
  constructor(
    readonly req: UpstreamRequest,
    readonly sink: UpstreamSink,
  ) {}
}

/** One keep-alive connection; carries one request at a time. */
class Connection implements ResponseEvents {
  readonly parser = new H1ResponseParser(this);
  current: Pending | null = null;
  /** Requests this connection has carried (a reused one may have been closed by the app meanwhile). */
  uses = 0;
  idleUntil = 0;
  bodyDone = true;
  dead = false;
  /** The socket's error, reported if the connection breaks mid-request. */
  error: Error | undefined;
  /** The response ended inside the bytes being fed: hand the connection back once they are all read. */
  private releaseAfterFeed = false;
  /** Reading is paused because the client is slower than the app. */
  private paused = false;
  private readonly resume = () => {
    // Resuming a socket that is already flowing would still cost a tick, so only undo our own pause.
    if (!this.paused) return;
    this.paused = false;
    this.socket.resume();
  };

  constructor(
    readonly pool: H1Upstream,
    readonly socket: net.Socket,
  ) {
    socket.on("end", () => this.onEof());
    socket.on("error", (err) => {
      this.error ??= err;
    });
    socket.on("close", () => this.onClose());
  }

  send(p: Pending): void {
    this.current = p;
    p.conn = this;
    this.uses++;
    const { req } = p;
    this.parser.start(req.method === "HEAD");
    let head = `${req.method} ${req.path} HTTP/1.1\r\n`;
    const h = req.headers;
    let hasHost = false;
    for (let i = 0; i < h.length; i += 2) {
      const name = h[i] as string;
      if (isHostName(name)) hasHost = true;
      head += `${name}: ${h[i + 1]}\r\n`;
    }
    if (!hasHost) head += this.pool.hostLine;
    head += framingField(req.framing);
    // The request leaves with the others of this turn (turn-writes.ts); head and body in one write.
    holdForTurn(this.socket);
    this.socket.write(`${head}\r\n`, "latin1");
    const body = req.body;
    if (body === null || body instanceof Uint8Array) {
      this.bodyDone = true;
      if (body !== null) this.socket.write(body);
      return;
    }
    this.bodyDone = false;
    this.pipeBody(p, body, req.framing !== BODY_CHUNKED);
  }

  /** Streams the request body with back-pressure both ways; chunk-encodes it when it has no length. */
  private pipeBody(p: Pending, body: Readable, sized: boolean): void {
    const { socket } = this;
    const onData = (chunk: Buffer) => {
      if (this.current !== p) return;
      let ok: boolean;
      if (sized) ok = socket.write(chunk);
      else {
        socket.cork();
        socket.write(`${chunk.length.toString(16)}\r\n`, "latin1");
        socket.write(chunk);
        ok = socket.write("\r\n", "latin1");
        socket.uncork();
      }
      if (!ok) body.pause();
    };
    const onDrain = () => body.resume();
    const onEnd = () => {
      cleanup();
      if (this.current !== p) return;
      if (!sized) socket.write("0\r\n\r\n", "latin1");
      this.bodyDone = true;
    };
    const cleanup = () => {
      body.off("data", onData);
      body.off("end", onEnd);
      socket.off("drain", onDrain);
    };
    body.on("data", onData);
    body.once("end", onEnd);
    socket.on("drain", onDrain);
    this.cleanupBody = cleanup;
  }

  cleanupBody: (() => void) | null = null;

  head(status: number, fields: ResponseFields): void {
    const p = this.current;
    if (p === null || p.cancelled) return;
    if (p.sink.startResponse(status, fields)) p.sink.resumeWith(this.resume);
  }

  body(chunk: Buffer): void {
    const p = this.current;
    if (p === null || p.cancelled) return;
    // `chunk` is a view of the shared read buffer, which the next read overwrites: the client side copies
    // what it keeps (a small body goes into the buffer of its head, so most responses copy it only once).
    if (!p.sink.onData(chunk)) {
      this.paused = true;
      this.socket.pause();
    }
  }

  end(reusable: boolean): void {
    const p = this.current as Pending;
    this.current = null;
    this.cleanupBody?.();
    this.cleanupBody = null;
    // A connection whose request body is still being sent cannot carry the next request.
    const keep = reusable && this.bodyDone && !this.dead;
    if (keep) {
      const hint = this.parser.keepAliveHintMs;
      this.idleUntil =
        this.pool.now() + (hint > 0 ? Math.min(IDLE_KEEP_MS, hint - HINT_MARGIN_MS) : IDLE_KEEP_MS);
    }
    this.resume();
    if (!p.cancelled) p.sink.onComplete();
    if (keep) this.releaseAfterFeed = true;
    else this.destroy();
  }

  /** Bytes read from the app (a view of the shared read buffer, valid only during this call). */
  onRead(chunk: Buffer): void {
    try {
      this.parser.feed(chunk);
    } catch (err) {
      if (this.releaseAfterFeed) {
        // The response was whole but more bytes followed it: the connection is out of step, drop it.
        this.releaseAfterFeed = false;
        this.destroy();
      } else this.fail(err as Error);
      return;
    }
    if (this.releaseAfterFeed) {
      this.releaseAfterFeed = false;
      this.pool.release(this);
    }
  }

  private onEof(): void {
    if (this.current === null) {
      this.destroy();
      return;
    }
    try {
      this.parser.eof();
    } catch (err) {
      this.fail(err as Error);
    }
  }

  private onClose(): void {
    this.dead = true;
    this.pool.forget(this);
    if (this.current !== null) {
      this.fail(this.error ?? new Error("upstream connection closed before the response ended"));
    }
  }

  /** The connection broke: replay a replayable request that got no byte back, else report the error. */
  private fail(err: Error): void {
    const p = this.current;
    this.current = null;
    this.cleanupBody?.();
    this.cleanupBody = null;
    this.destroy();
    if (p === null || p.cancelled) return;
    if (
      this.uses > 1 &&
      !this.parser.started &&
      !p.retried &&
      p.req.body === null &&
      REPLAYABLE.has(p.req.method)
    ) {
      p.retried = true;
      p.conn = null;
      this.pool.dial(p);
      return;
    }
    p.sink.onError(err, false, !this.parser.started);
  }

  destroy(): void {
    if (this.dead) return;
    this.dead = true;
    this.socket.destroy();
  }
}

/** Where an `H1Upstream` connects, and how. */
export interface H1UpstreamOptions {
  /** The server's address: an IP (default 127.0.0.1, the user container beside the queue-proxy). */
  host?: string;
  port: number;
  /** Connections at most, open or being dialled; requests beyond wait in arrival order. */
  maxConnections: number;
  /** How a dial that times out is retried (default Knative's back-off, c.3). */
  dial?: DialPolicy;
  now?: () => number;
}

/**
 * A keep-alive HTTP/1.1 client for one server (the queue-proxy's: the user container on 127.0.0.1:`port`,
 * c.3): at most `maxConnections` connections, idle ones reused last-in first-out, requests beyond the limit
 * queued in arrival order, dials retried by the given policy. One request per connection at a time (no
 * pipelining).
 */
export class H1Upstream {
  readonly host: string;
  readonly port: number;
  /** The Host field line sent when a request carries none. */
  readonly hostLine: string;
  readonly now: () => number;
  private readonly max: number;
  private readonly policy: DialPolicy;
  private readonly idle: Connection[] = [];
  private readonly queue: Pending[] = [];
  private readonly all = new Set<Connection>();
  private dialing = 0;
  private closing: (() => void) | null = null;
  private destroyed = false;

  constructor(opts: H1UpstreamOptions) {
    if (!(opts.maxConnections >= 1))
      throw new RangeError(`maxConnections must be >= 1, got ${opts.maxConnections}`);
    this.host = opts.host ?? "127.0.0.1";
    this.port = opts.port;
    this.max = opts.maxConnections;
    this.policy = opts.dial ?? KNATIVE_DIAL_POLICY;
    this.now = opts.now ?? Date.now;
    this.hostLine = `host: ${this.host.includes(":") ? `[${this.host}]` : this.host}:${this.port}\r\n`;
  }

  /** Connections open or being dialled. */
  get size(): number {
    return this.all.size + this.dialing;
  }

  /** Sends `req`; the sink hears the response (or the error). */
  dispatch(req: UpstreamRequest, sink: UpstreamSink): void {
    const p = new Pending(req, sink);
    sink.onConnect(() => this.cancel(p));
    if (this.closing !== null) {
      sink.onError(new Error("upstream pool is closed"), true);
      return;
    }
    const conn = this.takeIdle();
    if (conn !== undefined) conn.send(p);
    else if (this.size < this.max) this.dial(p);
    else this.queue.push(p);
  }

  /** Stops taking requests and resolves once those in flight have ended. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.closing = resolve;
      for (const c of this.idle.splice(0)) c.destroy();
      this.maybeClosed();
    });
  }

  /** Ends everything now; requests in flight fail. */
  destroy(): Promise<void> {
    for (const p of this.queue.splice(0)) p.sink.onError(new Error("upstream pool destroyed"), true);
    this.destroyed = true;
    for (const c of [...this.all]) c.destroy();
    this.closing ??= () => {};
    return Promise.resolve();
  }

  /** A connection finished its request and may carry another. */
  release(conn: Connection): void {
    const next = this.queue.shift();
    if (next !== undefined) {
      conn.send(next);
      return;
    }
    if (this.closing !== null) {
      conn.destroy();
      return;
    }
    this.idle.push(conn);
  }

  /** A connection is gone: drop it and let a queued request dial in its place. */
  forget(conn: Connection): void {
    if (!this.all.delete(conn)) return;
    const i = this.idle.indexOf(conn);
    if (i >= 0) this.idle.splice(i, 1);
    this.next();
    this.maybeClosed();
  }

  /** Dials a new connection for `p`. */
  dial(p: Pending): void {
    this.dialing++;
    let conn: Connection | null = null;
    // Reads land in one shared buffer and go straight to the parser: no Buffer, stream event or tick per
    // read (Node's `onread`). Nothing is read before `connect`, when `conn` is set.
    const connect = (host: string, port: number) =>
      net.connect({
        host,
        port,
        noDelay: true,
        onread: {
          buffer: READ_BUFFER,
          callback: (n: number) => {
            conn?.onRead(READ_BUFFER.subarray(0, n));
            return true; // back-pressure pauses the socket itself (`Connection.body`)
          },
        },
      });
    dialWithRetry(
      this.host,
      this.port,
      this.policy,
      (err, socket) => {
        this.dialing--;
        if (err !== null || socket === null) {
          // A replayed request may have reached the app on the connection that failed under it.
          if (!p.cancelled) p.sink.onError(err ?? new Error("dial failed"), !p.retried);
          this.next();
          this.maybeClosed();
          return;
        }
        if (this.destroyed) {
          socket.destroy();
          if (!p.cancelled) p.sink.onError(new Error("upstream pool destroyed"), !p.retried);
          return;
        }
        conn = new Connection(this, socket);
        this.all.add(conn);
        if (p.cancelled) this.release(conn);
        else conn.send(p);
      },
      Math.random,
      connect,
    );
  }

  private cancel(p: Pending): void {
    if (p.cancelled) return;
    p.cancelled = true;
    const i = this.queue.indexOf(p);
    if (i >= 0) this.queue.splice(i, 1);
    // Mid-request the connection's state is unknown: drop it.
    if (p.conn !== null && p.conn.current === p) p.conn.destroy();
  }

  private takeIdle(): Connection | undefined {
    const now = this.now();
    for (;;) {
      const c = this.idle.pop();
      if (c === undefined || (!c.dead && c.idleUntil > now)) return c;
      c.destroy();
    }
  }

  private next(): void {
    if (this.queue.length > 0 && this.size < this.max) this.dial(this.queue.shift() as Pending);
  }

  private maybeClosed(): void {
    if (this.closing !== null && this.size === 0 && this.queue.length === 0) this.closing();
  }
}
