/**
 * @thaw/readiness/testing: a scripted {@link ProbeTransport} for tests that run probes on a manual clock.
 */
import type { Clock } from "@thaw/clock";
import type { GrpcHealthRequest, GrpcServingStatus, HttpProbeRequest, ProbeTransport } from "./transport.js";

/** One call the fake received, stamped with the clock's time. */
export interface FakeCall {
  kind: "http" | "tcp" | "grpc";
  at: number;
  timeoutMs: number;
  http?: HttpProbeRequest;
  tcp?: { host: string; port: number };
  grpc?: GrpcHealthRequest;
}

/** How the fake answers a call: after `afterMs` of clock time, or never (`hang`, until the signal aborts). */
export interface FakeReply {
  /** HTTP status (default 200). */
  status?: number;
  /** HTTP `Location` header. */
  location?: string;
  /** gRPC serving status (default SERVING). */
  grpcStatus?: GrpcServingStatus;
  /** Reject with this message instead of answering. */
  error?: string;
  afterMs?: number;
  hang?: boolean;
}

/** A transport whose answers a test scripts; `calls` records every call in order. */
export interface FakeTransport extends ProbeTransport {
  calls: FakeCall[];
}

/** Builds a {@link FakeTransport} answering each call with `respond(call, index)`. */
export function createFakeTransport(
  clock: Clock,
  respond: (call: FakeCall, index: number) => FakeReply,
): FakeTransport {
  const calls: FakeCall[] = [];
  async function reply(call: FakeCall, signal: AbortSignal): Promise<FakeReply> {
    calls.push(call);
    const r = respond(call, calls.length - 1);
    if (r.hang) {
      await new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
    if (r.afterMs) await clock.sleep(r.afterMs, signal);
    if (r.error !== undefined) throw new Error(r.error);
    return r;
  }
  return {
    calls,
    async http(req, timeoutMs, signal) {
      const r = await reply({ kind: "http", at: clock.now(), timeoutMs, http: req }, signal);
      return r.location ? { status: r.status ?? 200, location: r.location } : { status: r.status ?? 200 };
    },
    async tcp(host, port, timeoutMs, signal) {
      await reply({ kind: "tcp", at: clock.now(), timeoutMs, tcp: { host, port } }, signal);
    },
    async grpc(req, timeoutMs, signal) {
      const r = await reply({ kind: "grpc", at: clock.now(), timeoutMs, grpc: req }, signal);
      return r.grpcStatus ?? "SERVING";
    },
  };
}
