import type { ProbeTransport } from "../transport.js";
import { grpcHealthCheck } from "./grpc.js";
import { h2cGet } from "./h2c.js";
import { http1Get } from "./http1.js";
import { tcpConnect } from "./tcp.js";

/**
 * The Node transport: HTTP/1.1 through node:http(s) with keep-alive off, h2c through node:http2, TCP through
 * node:net, gRPC health checks through a small gRPC-over-node:http2 client.
 */
export function createNodeTransport(): ProbeTransport {
  return {
    http: (req, timeoutMs, signal) =>
      req.protocol === "h2c" ? h2cGet(req, timeoutMs, signal) : http1Get(req, timeoutMs, signal),
    tcp: tcpConnect,
    grpc: grpcHealthCheck,
  };
}

/** A shared Node transport; it holds no state, so one is enough. */
export const nodeTransport: ProbeTransport = createNodeTransport();
