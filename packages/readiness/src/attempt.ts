import type { Clock } from "@thaw/clock";
import { withDeadline } from "./deadline.js";
import { ProbeError, ProbeErrorCode, toProbeError } from "./errors.js";
import { type HttpProbeMode, httpProbeAttempt, PROBE_USER_AGENT } from "./http-probe.js";
import { numericPort, PROBE_HOST } from "./queue-env.js";
import type { ProbeTransport } from "./transport.js";
import type { Probe } from "./types.js";

/** What one probe attempt needs besides the probe. */
export interface AttemptOptions {
  transport: ProbeTransport;
  clock: Clock;
  /** Timeout of the attempt (of each request, for HTTP auto-detection). */
  timeoutMs: number;
  /** `http1` (default), `h2c`, or `auto` (Knative's `autodetect-http2` feature). */
  httpMode?: HttpProbeMode;
  signal?: AbortSignal;
}

/** The outcome of one attempt: ready, or the reason it was not. */
export type AttemptResult = { ok: true } | { ok: false; error: ProbeError };

/**
 * Runs one attempt of one probe, dispatching on its handler in Knative's order (httpGet, tcpSocket, grpc,
 * exec). Never rejects: every failure, including a refused `exec` or a probe without handler, is a result.
 */
export async function runProbeAttempt(probe: Probe, options: AttemptOptions): Promise<AttemptResult> {
  try {
    await attempt(probe, options);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: toProbeError(err) };
  }
}

async function attempt(probe: Probe, o: AttemptOptions): Promise<void> {
  const { transport, clock, timeoutMs, signal } = o;
  if (probe.httpGet) {
    return httpProbeAttempt(probe.httpGet, o.httpMode ?? "http1", { transport, clock, timeoutMs, signal });
  }
  if (probe.tcpSocket) {
    const port = numericPort(probe.tcpSocket.port);
    if (port === undefined) {
      throw new ProbeError(
        ProbeErrorCode.BadPort,
        `tcpSocket port ${JSON.stringify(probe.tcpSocket.port ?? 0)} is not a port number`,
      );
    }
    const host = probe.tcpSocket.host || PROBE_HOST;
    return withDeadline(clock, timeoutMs, signal, (s) => transport.tcp(host, port, timeoutMs, s));
  }
  if (probe.grpc) {
    const req = {
      host: PROBE_HOST,
      port: probe.grpc.port ?? 0,
      service: probe.grpc.service ?? "",
      userAgent: PROBE_USER_AGENT,
    };
    const status = await withDeadline(clock, timeoutMs, signal, (s) =>
      transport.grpc(req, timeoutMs, s),
    ).catch((err: unknown) => {
      if (err instanceof ProbeError && err.code === ProbeErrorCode.Timeout) {
        throw new ProbeError(
          ProbeErrorCode.Timeout,
          `gRPC health check did not complete within ${timeoutMs}ms (DeadlineExceeded)`,
        );
      }
      throw err;
    });
    if (status !== "SERVING") {
      throw new ProbeError(ProbeErrorCode.GrpcStatus, `gRPC health check answered ${status}, want SERVING`);
    }
    return;
  }
  if (probe.exec) throw new ProbeError(ProbeErrorCode.Unsupported, "exec probe not supported");
  throw new ProbeError(ProbeErrorCode.NoHandler, "no probe found");
}
