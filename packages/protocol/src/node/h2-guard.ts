import http2 from "node:http2";

/**
 * Streams one client may have open at once on a session: Go's HTTP/2 server default (250), the server
 * Knative's queue-proxy runs. Node's own default is 2^32-1, which bounds nothing.
 */
export const H2_MAX_CONCURRENT_STREAMS = 250;

/**
 * Rapid reset (CVE-2023-44487): a session whose client resets more than this many streams within
 * {@link H2_RESET_WINDOW_MS} gets GOAWAY ENHANCE_YOUR_CALM and is closed. Ten resets a second sustained is
 * far above what a gRPC client's cancels and deadlines produce, and far below what a flood needs; nghttp2's
 * own limit (a burst of 1000, then 33 a second, then GOAWAY INTERNAL_ERROR) lets 1000 through first.
 */
export const H2_MAX_RESETS = 100;

/** The window over which {@link H2_MAX_RESETS} is counted. */
export const H2_RESET_WINDOW_MS = 10_000;

/** How long a flooding session's open streams may still run after its GOAWAY. */
const FLOOD_CLOSE_MS = 1000;

/** The settings every Thaw HTTP/2 server advertises. */
export const H2_SERVER_SETTINGS: http2.Settings = { maxConcurrentStreams: H2_MAX_CONCURRENT_STREAMS };

/** How a guarded server bounds its sessions. */
export interface H2GuardOptions {
  /** A session with no open stream for this long is closed with GOAWAY (NO_ERROR); 0 = never. */
  idleMs: number | (() => number);
  /** A session that has opened no stream yet (a preface-only client) is closed after this; default `idleMs`. */
  firstStreamMs?: number | (() => number);
  /** Default {@link H2_MAX_RESETS}. */
  maxResets?: number;
  /** Default {@link H2_RESET_WINDOW_MS}. */
  resetWindowMs?: number;
  /** Called once per session closed for resetting too many streams. */
  onFlood?: (session: http2.ServerHttp2Session) => void;
}

/** The sessions of a guarded server, for drain and stop. */
export interface H2Sessions {
  readonly sessions: ReadonlySet<http2.ServerHttp2Session>;
  /** GOAWAY (NO_ERROR) to every session: open streams finish, no new one starts. */
  close(): void;
  /** Destroys every session and its connection at once. */
  destroy(): void;
}

/** Whether the client reset `stream` (RST_STREAM, or the connection went) or it is closed. */
export function h2StreamGone(stream: http2.Http2Stream): boolean {
  return stream.aborted || stream.destroyed || stream.closed;
}

/**
 * Calls `go` once the server has read what the client sent with the stream's HEADERS, unless that was its
 * RST_STREAM: a stream reset before dispatch is never forwarded. Node emits a stream as its HEADERS frame is
 * parsed, before the rest of the same read, so the stream waits two turns of the event loop: the first ends
 * that read, the poll before the second reads what was already waiting in the socket. A reset that arrives
 * later cancels the forwarded stream instead (Node's own client writes the RST_STREAM of `request()` then
 * `close()` separately, 4-34 ms after the HEADERS for 100 streams, so those streams are dispatched first).
 */
export function whenH2StreamSettled(stream: http2.Http2Stream, go: () => void): void {
  setImmediate(() => {
    if (h2StreamGone(stream)) return;
    setImmediate(() => {
      if (!h2StreamGone(stream)) go();
    });
  });
}

const read = (v: number | (() => number)): number => (typeof v === "function" ? v() : v);

/**
 * Bounds every session of an HTTP/2 server (h2c or TLS): counts the client's stream resets in a window and
 * closes the session with GOAWAY ENHANCE_YOUR_CALM past the bound, and closes sessions that hold no stream
 * for the idle limit (preface-only connections included). Attach before the server accepts connections.
 */
export function guardH2Server(
  server: http2.Http2Server | http2.Http2SecureServer,
  options: H2GuardOptions,
): H2Sessions {
  const maxResets = options.maxResets ?? H2_MAX_RESETS;
  const windowMs = options.resetWindowMs ?? H2_RESET_WINDOW_MS;
  const sessions = new Set<http2.ServerHttp2Session>();
  const onSession = (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    let open = 0;
    let resets = 0;
    let windowStart = performance.now();
    let idle: NodeJS.Timeout | undefined;
    const arm = (ms: number) => {
      clearTimeout(idle);
      idle = undefined;
      if (ms <= 0 || session.closed || session.destroyed) return;
      idle = setTimeout(() => {
        if (open === 0) session.close();
      }, ms);
      idle.unref();
    };
    const flood = () => {
      options.onFlood?.(session);
      // GOAWAY, then a close that keeps reading (a destroy with the flood's frames unread would reset the
      // TCP connection and lose the GOAWAY); streams still open are cut after FLOOD_CLOSE_MS.
      session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
      session.close();
      setTimeout(() => session.destroy(), FLOOD_CLOSE_MS).unref();
    };
    const noteReset = () => {
      const now = performance.now();
      if (now - windowStart > windowMs) {
        windowStart = now;
        resets = 0;
      }
      if (++resets > maxResets && !session.destroyed) flood();
    };
    arm(read(options.firstStreamMs ?? options.idleMs));
    session.on("stream", (stream: http2.ServerHttp2Stream) => {
      open++;
      clearTimeout(idle);
      idle = undefined;
      let counted = false;
      const reset = () => {
        if (counted) return;
        counted = true;
        noteReset();
      };
      // 'aborted': the client reset the stream before this side ended it (or the connection went).
      stream.once("aborted", reset);
      stream.once("close", () => {
        if (--open === 0) arm(read(options.idleMs));
      });
    });
    session.once("close", () => {
      clearTimeout(idle);
      sessions.delete(session);
    });
  };
  server.on("session", onSession);
  return {
    sessions,
    close() {
      for (const s of sessions) if (!s.closed) s.close();
    },
    destroy() {
      for (const s of sessions) s.destroy();
    },
  };
}
