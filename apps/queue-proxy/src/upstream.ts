import { createRequire } from "node:module";
import type { Pool as PoolType } from "undici";
import { type DialPolicy, dialWithRetry, KNATIVE_DIAL_POLICY } from "./dial.js";

// undici's index loads fetch, websockets, caches and mocks (~9 MB of RSS); the sidecar needs only the
// Pool. undici is pinned to an exact version, so this internal path is stable for us.
const Pool = createRequire(import.meta.url)("undici/lib/dispatcher/pool.js") as typeof PoolType;

/** Upstream connections kept per c.3: containerConcurrency, or 1000 when unlimited. */
export function poolSizeFor(containerConcurrency: number): number {
  return containerConcurrency > 0 ? containerConcurrency : 1000;
}

/** A keep-alive HTTP/1.1 pool to the user container on 127.0.0.1:`port`, dialling with Knative's back-off. */
export function createUpstreamPool(
  port: number,
  containerConcurrency: number,
  policy = KNATIVE_DIAL_POLICY,
): PoolType {
  return new Pool(`http://127.0.0.1:${port}`, {
    connections: poolSizeFor(containerConcurrency),
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    // The app's own timers (c.4) bound a request; undici's must never fire first.
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: (opts, callback) => {
      dialWithRetry(opts.hostname, Number(opts.port) || port, policy as DialPolicy, (err, socket) => {
        if (err) callback(err, null);
        else callback(null, socket as NonNullable<typeof socket>);
      });
    },
  });
}
