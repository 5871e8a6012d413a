/**
 * The serving port's HTTP/1.x server. Node's `http.Server` built two objects per request with dozens of
 * fields and checked every response field again; this one reads the request with `H1RequestParser`
 * and writes each response head together with the first body bytes in one `write`, so the proxy's
 * per-request cost is mostly the two sockets. Behaviour follows Go's server, which Knative's
 * queue-proxy runs on: keep-alive without idle timeout, a head read within `headersTimeoutMs`,
 * 100 Continue sent when the body is first read, an unread request body discarded up to 256 KiB after
 * the response (beyond that the connection closes), pipelined requests answered in order.
 */
import type net from "node:net";
import type { Duplex } from "node:stream";
import { H1Connection } from "./h1-connection.js";
import type { Downstream } from "./ports.js";

/** The socket of an upgraded connection and the bytes already read after the request. */
export interface TakenOver {
  socket: Duplex;
  head: Buffer;
}

export interface H1ServerHandlers {
  /** A request: answer through `d`; `rawHeaders` are the fields as received. */
  request(d: Downstream, rawHeaders: string[]): void;
  /**
   * An upgrade request, answered through `d` like any other request unless the app switches protocols:
   * only then does `takeOver` hand the socket (and the bytes read after the request) to the handler. It
   * must be called on a later turn than this call (once the app has answered), never from within it.
   */
  upgrade(d: Downstream, rawHeaders: string[], takeOver: () => TakenOver): void;
}

export interface H1ServerOptions {
  /** Time from a request head's first byte to its end (Go's ReadHeaderTimeout); 408 and close after. */
  headersTimeoutMs: number;
  /** Largest request head (431 beyond). */
  maxHeadBytes?: number;
}

/** The serving port's HTTP/1.x server: its connections, the head timeout, and shutting down. */
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
