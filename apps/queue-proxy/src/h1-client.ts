import type { DialPolicy } from "./dial.js";
import { H1Upstream, type UpstreamRequest } from "./h1-upstream.js";
import type { UpstreamSink } from "./ports.js";

/** How an `H1Client` pools its connections. */
export interface H1ClientOptions {
  /** Connections at most per destination, open or being dialled; more requests wait in arrival order. */
  maxConnectionsPerHost: number;
  /** How a dial that times out is retried (each pool's `H1Upstream` dial policy). */
  dial: DialPolicy;
  now?: () => number;
}

/**
 * Keep-alive HTTP/1.1 pools, one `H1Upstream` per destination `host:port` (a pod), made on first use. A
 * proxy in front of many pods closes the pool of a pod that left with `retain`, so its idle connections do not
 * hold the departed server open.
 */
export class H1Client {
  readonly #pools = new Map<string, H1Upstream>();
  readonly #opts: H1ClientOptions;
  #closed = false;

  constructor(opts: H1ClientOptions) {
    this.#opts = opts;
  }

  /** Sends `req` to `dest` ("host:port", "[v6]:port"); the sink hears the response or the error. */
  dispatch(dest: string, req: UpstreamRequest, sink: UpstreamSink): void {
    const pool = this.#pools.get(dest) ?? this.#open(dest);
    if (pool instanceof Error) {
      sink.onConnect(() => {});
      sink.onError(pool, true);
      return;
    }
    pool.dispatch(req, sink);
  }

  #open(dest: string): H1Upstream | Error {
    if (this.#closed) return new Error("upstream client is closed");
    const at = splitHostPort(dest);
    if (at === undefined) return new TypeError(`destination must be host:port, got ${JSON.stringify(dest)}`);
    const { maxConnectionsPerHost, dial, now } = this.#opts;
    const pool = new H1Upstream({
      ...at,
      maxConnections: maxConnectionsPerHost,
      dial,
      ...(now ? { now } : {}),
    });
    this.#pools.set(dest, pool);
    return pool;
  }

  /** Destinations with a pool now. */
  destinations(): string[] {
    return [...this.#pools.keys()];
  }

  /** Closes the pools of every destination not in `live`: idle connections now, busy ones after their response. */
  retain(live: Iterable<string>): void {
    const keep = new Set(live);
    for (const dest of [...this.#pools.keys()]) if (!keep.has(dest)) this.drop(dest);
  }

  /** Closes `dest`'s pool (idle connections now, busy ones after their response); a later request opens a new one. */
  drop(dest: string): void {
    const pool = this.#pools.get(dest);
    if (pool === undefined) return;
    this.#pools.delete(dest);
    void pool.close();
  }

  /** Takes no more requests; resolves once those in flight have ended. */
  close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#pools.values()];
    this.#pools.clear();
    return Promise.all(all.map((p) => p.close())).then(() => {});
  }

  /** Ends everything now; requests in flight fail. */
  destroy(): Promise<void> {
    this.#closed = true;
    const all = [...this.#pools.values()];
    this.#pools.clear();
    return Promise.all(all.map((p) => p.destroy())).then(() => {});
  }
}

/** "10.0.0.5:8012" -> { host, port }; "[fd00::5]:8012" -> host "fd00::5"; undefined when it is neither. */
export function splitHostPort(dest: string): { host: string; port: number } | undefined {
  const colon = dest.lastIndexOf(":");
  if (colon <= 0 || colon === dest.length - 1) return undefined;
  const port = Number(dest.slice(colon + 1));
  let host = dest.slice(0, colon);
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  else if (host.includes(":")) return undefined;
  if (host === "" || !Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return { host, port };
}
