import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import {
  BODY_LIMITS,
  bodyErrorResponse,
  type FirstByteNote,
  isKubeletProbe,
  localOnlyProblem,
  PROTOBUF_CONTENT_TYPE,
  type ProblemNote,
  parseFirstByteNote,
  readBoundedBody,
} from "@thaw/protocol";
import { Hono } from "hono";
import { WebSocketServer } from "ws";
import { bearerOk } from "./auth.js";
import { type Logger, silentLogger } from "./logger.js";
import { ingestWireStats, type PushedStat } from "./stat-ingest.js";

/** Where decoded stats go (the service's `record`). */
export type StatHandler = (stats: PushedStat[]) => void;

/** Options shared by the HTTP and websocket stat endpoints. */
export interface StatEndpointOptions {
  onStats: StatHandler;
  /** Bearer token; none = open (DESIGN.md contract 5). */
  token?: string;
  logger?: Logger;
  /** Largest accepted body or frame (default 1 MiB). */
  maxBytes?: number;
}

/** What is wrong with revisions' pods now, and each change: sent to every connected activator. */
export interface ProblemFeed {
  current(): ProblemNote[];
  on(listener: (note: ProblemNote) => void): () => void;
}

const DEFAULT_MAX_BYTES = BODY_LIMITS.stats;

/**
 * The HTTP side of the stat server: kubelet probes get 200, `POST /v1/stats` takes one serialised
 * `WireStatMessages` (`Content-Type: application/protobuf`) for activators that cannot keep a websocket.
 */
export function statRoutes(opts: StatEndpointOptions): Hono {
  const app = new Hono();
  const max = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  app.use("*", async (c, next) => {
    if (isKubeletProbe(c.req.raw.headers)) return c.body(null, 200);
    await next();
  });
  app.get("/healthz", (c) => c.text("ok"));
  app.post("/v1/stats", async (c) => {
    if (!bearerOk(c.req.header("authorization"), opts.token)) {
      return c.json({ error: { code: "ERR_UNAUTHORIZED", message: "missing or wrong bearer token" } }, 401);
    }
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
    if (type !== PROTOBUF_CONTENT_TYPE) {
      return c.json(
        { error: { code: "ERR_BAD_REQUEST", message: `Content-Type must be ${PROTOBUF_CONTENT_TYPE}` } },
        415,
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await readBoundedBody(c.req.raw, max);
    } catch (err) {
      const tooLarge = bodyErrorResponse(err);
      if (tooLarge) return tooLarge;
      throw err;
    }
    const res = ingestWireStats(bytes);
    if (!res.ok) return c.json({ error: { code: "ERR_BAD_REQUEST", message: res.error } }, 400);
    opts.onStats(res.stats);
    return c.json({ accepted: res.stats.length, skipped: res.skipped });
  });
  return app;
}

/** A running websocket stat endpoint. */
export interface StatSocket {
  /** Open connections. */
  readonly connections: number;
  /** Connections accepted since start. */
  readonly accepted: number;
  /** Closes every connection with 1012 (service restart), as Knative's stat server does on shutdown. */
  close(): Promise<void>;
}

/**
 * Accepts activators' websocket connections on `server` (any path) and decodes each binary frame as one
 * `WireStatMessages`; a text frame that is a FirstByteNote goes to `onFirstByte`, any other is dropped (f.1).
 * The bearer token is checked on the upgrade request. With `problems`, each connection is sent the
 * revisions' pod problems as JSON text frames (ProblemNote).
 */
export function attachStatSocket(
  server: Server,
  opts: StatEndpointOptions & { problems?: ProblemFeed; onFirstByte?: (note: FirstByteNote) => void },
): StatSocket {
  const log = opts.logger ?? silentLogger;
  const wss = new WebSocketServer({ noServer: true, maxPayload: opts.maxBytes ?? DEFAULT_MAX_BYTES });
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!bearerOk(req.headers.authorization, opts.token)) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    // No token (laptop mode): a browser page on another site may open a websocket to loopback too.
    if (
      !opts.token &&
      localOnlyProblem({
        headers: new Headers(req.headers as Record<string, string>),
        url: "http://unknown/",
      }) !== undefined
    ) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit("connection", ws, req));
  };
  server.on("upgrade", onUpgrade);
  let accepted = 0;
  wss.on("connection", (ws) => {
    accepted++;
    // The other way, as text frames: what the scaler found wrong with a revision's pods, so an activator
    // answers the requests it holds with the cause now (a reconnecting one learns the current state).
    const problems = opts.problems;
    if (problems) {
      const tell = (n: ProblemNote) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(n));
      };
      for (const n of problems.current()) tell(n);
      const off = problems.on(tell);
      ws.on("close", off);
    }
    ws.on("message", (data, isBinary) => {
      if (!isBinary) {
        // An activator's text frame: a cold start's first byte (anything else is dropped).
        const note = parseFirstByteNote(String(data));
        if (note) opts.onFirstByte?.(note);
        return;
      }
      const bytes = Array.isArray(data)
        ? new Uint8Array(Buffer.concat(data))
        : new Uint8Array(data as ArrayBuffer | Buffer);
      const res = ingestWireStats(bytes);
      if (!res.ok) {
        log.warn("bad stat frame", { error: res.error });
        return;
      }
      opts.onStats(res.stats);
    });
    ws.on("error", (err) => log.warn("stat socket error", { error: err.message }));
  });
  return {
    get connections() {
      return wss.clients.size;
    },
    get accepted() {
      return accepted;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.off("upgrade", onUpgrade);
        for (const ws of wss.clients) ws.close(1012, "autoscaler restarting");
        wss.close(() => resolve());
      }),
  };
}
