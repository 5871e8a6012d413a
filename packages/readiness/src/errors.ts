/** Stable codes of probe failures, so callers can branch without parsing messages. */
export const ProbeErrorCode = {
  /** The attempt did not finish within its timeout. */
  Timeout: "ERR_PROBE_TIMEOUT",
  /** An HTTP probe answered outside 200-399. */
  Status: "ERR_PROBE_STATUS",
  /** No connection could be made, or it broke. */
  Connect: "ERR_PROBE_CONNECT",
  /** A handler or protocol this runtime cannot run (exec everywhere, gRPC and h2c on workerd). */
  Unsupported: "ERR_PROBE_UNSUPPORTED",
  /** The probe has no handler at all. */
  NoHandler: "ERR_PROBE_NO_HANDLER",
  /** The probe's port is not a number (named ports must be rewritten before running). */
  BadPort: "ERR_PROBE_BAD_PORT",
  /** The gRPC server does not implement grpc.health.v1.Health. */
  GrpcUnimplemented: "ERR_PROBE_GRPC_UNIMPLEMENTED",
  /** The gRPC call failed, or the service answered something other than SERVING. */
  GrpcStatus: "ERR_PROBE_GRPC_STATUS",
} as const;

/** One of the {@link ProbeErrorCode} values. */
export type ProbeErrorCode = (typeof ProbeErrorCode)[keyof typeof ProbeErrorCode];

/** V8's knob on `Error` (Node and workerd both run V8; the workerd build's types do not declare it). */
const V8Error = Error as { stackTraceLimit?: number };

/**
 * Why one probe attempt failed. An outcome, not a bug: it carries no stack trace, which V8 would otherwise
 * capture on every refused connect while an app starts (polled every few ms).
 */
export class ProbeError extends Error {
  override readonly name = "ProbeError";
  readonly code: ProbeErrorCode;

  constructor(code: ProbeErrorCode, message: string, options?: { cause?: unknown }) {
    const limit = V8Error.stackTraceLimit;
    V8Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      V8Error.stackTraceLimit = limit;
    }
    this.code = code;
  }
}

/** Wraps whatever a transport threw into a ProbeError, keeping ProbeErrors as they are. */
export function toProbeError(err: unknown): ProbeError {
  if (err instanceof ProbeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new ProbeError(ProbeErrorCode.Connect, message, { cause: err });
}
