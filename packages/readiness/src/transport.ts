/** HTTP version of one probe request: HTTP/1.1, or HTTP/2 over cleartext with prior knowledge. */
export type HttpProtocol = "http1" | "h2c";

/** One HTTP probe request, fully formed by the core. */
export interface HttpProbeRequest {
  /** Absolute URL, e.g. `http://127.0.0.1:8080/healthz?x=1`. */
  url: string;
  /** Headers in the order to send them; a name may repeat. `User-Agent` comes first. */
  headers: ReadonlyArray<readonly [string, string]>;
  protocol: HttpProtocol;
}

/** What the core needs from an HTTP answer (the body is drained and dropped by the transport). */
export interface HttpProbeResponse {
  status: number;
  /** The `Location` header, which the core follows on 301/302/303/307/308. */
  location?: string;
}

/** One `grpc.health.v1.Health/Check` call. */
export interface GrpcHealthRequest {
  host: string;
  port: number;
  service: string;
  userAgent: string;
}

/** `HealthCheckResponse.ServingStatus` by name. */
export type GrpcServingStatus = "UNKNOWN" | "SERVING" | "NOT_SERVING" | "SERVICE_UNKNOWN";

/**
 * The network capability the prober runs through; one implementation per runtime (`./node`, `./workerd`)
 * and fakes in tests. Every call must settle promptly once `signal` aborts, and may use `timeoutMs` for
 * its own socket timeouts. Failures reject (with a `ProbeError` where the cause is known).
 */
export interface ProbeTransport {
  /** Sends one GET with keep-alive off and resolves with the status once the body is drained. */
  http(req: HttpProbeRequest, timeoutMs: number, signal: AbortSignal): Promise<HttpProbeResponse>;
  /** Resolves once a TCP connection to host:port is established (and closes it). */
  tcp(host: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Calls Health/Check and resolves with the serving status. */
  grpc(req: GrpcHealthRequest, timeoutMs: number, signal: AbortSignal): Promise<GrpcServingStatus>;
}
