import { connect as cfConnect } from "cloudflare:sockets";
import { ProbeError, ProbeErrorCode } from "../errors.js";
import { groupHeaders } from "../headers.js";
import type { ProbeTransport } from "../transport.js";

/** The capabilities the workerd transport uses; defaults are the runtime's own `fetch` and `connect`. */
export interface WorkerdTransportOptions {
  fetch?: typeof fetch;
  connect?: typeof cfConnect;
}

/** Rejects with the signal's reason once it aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/**
 * The workerd transport: `fetch` for HTTP (redirects not followed, body drained), `connect` from
 * cloudflare:sockets for TCP. workerd cannot choose h2c nor speak gRPC over a raw socket, so those refuse
 * with `ERR_PROBE_UNSUPPORTED` (HTTP/2 auto-detection then falls back to HTTP/1.1).
 */
export function createWorkerdTransport(options: WorkerdTransportOptions = {}): ProbeTransport {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const doConnect = options.connect ?? cfConnect;
  return {
    async http(req, _timeoutMs, signal) {
      if (req.protocol === "h2c") {
        throw new ProbeError(ProbeErrorCode.Unsupported, "h2c prior knowledge is not available on workerd");
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(groupHeaders(req.headers))) {
        for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
      }
      const res = await doFetch(req.url, { method: "GET", headers, redirect: "manual", signal });
      await res.arrayBuffer();
      const location = res.headers.get("location");
      return location ? { status: res.status, location } : { status: res.status };
    },
    async tcp(host, port, _timeoutMs, signal) {
      const socket = doConnect({ hostname: host, port });
      try {
        await Promise.race([socket.opened, aborted(signal)]);
      } finally {
        socket.close().catch(() => {});
      }
    },
    async grpc() {
      throw new ProbeError(ProbeErrorCode.Unsupported, "gRPC probes are not supported on workerd");
    },
  };
}
