import { Readable } from "node:stream";
import { Agent } from "undici";
import { type Forwarder, UpstreamError } from "../ports.js";

/** Errors that mean the connection never opened, so no request byte reached the pod. */
const NOT_SENT = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** Bodies up to this size with a Content-Length are read whole before answering. */
const SMALL_BODY_BYTES = 64 * 1024;

/** Options of the keep-alive upstream pool. */
export interface PoolOptions {
  /** Idle connections kept per pod (Knative: 100). */
  connectionsPerHost?: number;
  keepAliveTimeoutMs?: number;
  connectTimeoutMs?: number;
}

/** A forwarder over one undici keep-alive pool shared by every pod. */
export function createUndiciForwarder(opts: PoolOptions = {}): {
  forward: Forwarder;
  agent: Agent;
  close: () => Promise<void>;
} {
  const agent = new Agent({
    connections: opts.connectionsPerHost ?? 100,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 30_000,
    connect: { timeout: opts.connectTimeoutMs ?? 5_000 },
    // The activator answers the client's timers itself; undici's own would cut long polls and SSE.
    headersTimeout: 0,
    bodyTimeout: 0,
  });
  const forward: Forwarder = async (dest, req) => {
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => {
      // Upgrades are spliced at the socket level on Node; undici refuses these headers on a plain request.
      if (k !== "upgrade" && k !== "connection") headers[k] = v;
    });
    const body =
      req.body === null
        ? null
        : req.body instanceof Uint8Array
          ? req.body
          : Readable.fromWeb(req.body as import("node:stream/web").ReadableStream<Uint8Array>);
    let res: Awaited<ReturnType<Agent["request"]>>;
    try {
      res = await agent.request({
        origin: `http://${dest}`,
        path: req.path,
        method: req.method as "GET",
        headers,
        body,
        signal: req.signal,
      });
    } catch (err) {
      if (req.signal.aborted) throw req.signal.reason;
      const code = (err as { code?: string }).code ?? "";
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? "";
      throw new UpstreamError(
        `${(err as Error).message}${code ? ` (${code})` : ""}`,
        !(NOT_SENT.has(code) || NOT_SENT.has(cause)),
      );
    }
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (Array.isArray(v)) for (const x of v) out.append(k, x);
      else if (v !== undefined) out.set(k, v);
    }
    const noBody = req.method === "HEAD" || res.statusCode === 204 || res.statusCode === 304;
    if (noBody) {
      res.body.resume();
      return { status: res.statusCode, headers: out, body: null };
    }
    // A small body of known length is read whole: one write to the client, no stream bridging.
    const length = Number(out.get("content-length") ?? Number.NaN);
    if (length <= SMALL_BODY_BYTES) {
      try {
        return { status: res.statusCode, headers: out, body: new Uint8Array(await res.body.arrayBuffer()) };
      } catch (err) {
        if (req.signal.aborted) throw req.signal.reason;
        throw new UpstreamError((err as Error).message, true);
      }
    }
    return {
      status: res.statusCode,
      headers: out,
      body: Readable.toWeb(res.body) as ReadableStream<Uint8Array>,
    };
  };
  return { forward, agent, close: () => agent.close() };
}
