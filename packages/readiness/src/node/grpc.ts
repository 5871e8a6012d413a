import http2 from "node:http2";
import { ProbeError, ProbeErrorCode } from "../errors.js";
import {
  decodeGrpcHealthResponse,
  encodeGrpcHealthRequest,
  GRPC_HEALTH_CHECK_PATH,
  grpcFrame,
  readGrpcFrames,
} from "../grpc-health.js";
import type { GrpcHealthRequest, GrpcServingStatus } from "../transport.js";
import { settleOnce } from "./guard.js";

/** gRPC status codes the probe reports by name. */
const CODE_NAMES: Record<number, string> = {
  1: "Canceled",
  2: "Unknown",
  3: "InvalidArgument",
  4: "DeadlineExceeded",
  5: "NotFound",
  7: "PermissionDenied",
  8: "ResourceExhausted",
  12: "Unimplemented",
  13: "Internal",
  14: "Unavailable",
  16: "Unauthenticated",
};

/** Identifies this client after the probe's own User-Agent, as gRPC libraries append theirs. */
const CLIENT_TOKEN = "thaw-grpc/0.1";

/**
 * `grpc.health.v1.Health/Check` over cleartext HTTP/2: one unary call on its own session. Resolves with
 * the serving status; rejects with a ProbeError naming the gRPC code when the call fails.
 */
export function grpcHealthCheck(
  req: GrpcHealthRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<GrpcServingStatus> {
  let session: http2.ClientHttp2Session | undefined;
  const host = req.host.includes(":") ? `[${req.host}]` : req.host;
  return settleOnce<GrpcServingStatus>(
    signal,
    timeoutMs,
    () => session?.destroy(),
    (resolve, reject) => {
      session = http2.connect(`http://${host}:${req.port}`);
      session.on("error", reject);
      const stream = session.request({
        ":method": "POST",
        ":path": GRPC_HEALTH_CHECK_PATH,
        "content-type": "application/grpc",
        te: "trailers",
        "user-agent": `${req.userAgent} ${CLIENT_TOKEN}`,
        "grpc-timeout": `${Math.max(1, Math.ceil(timeoutMs))}m`,
      });
      let head: http2.IncomingHttpHeaders = {};
      let trailers: http2.IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on("response", (h) => {
        head = h;
      });
      stream.on("trailers", (t) => {
        trailers = t;
      });
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("error", reject);
      stream.on("end", () => {
        try {
          resolve(outcome(head, trailers, Buffer.concat(chunks), req.service, timeoutMs));
        } catch (err) {
          reject(err);
        }
      });
      stream.end(grpcFrame(encodeGrpcHealthRequest(req.service)));
    },
  );
}

function outcome(
  head: http2.IncomingHttpHeaders,
  trailers: http2.IncomingHttpHeaders,
  body: Buffer,
  service: string,
  timeoutMs: number,
): GrpcServingStatus {
  const httpStatus = Number(head[":status"] ?? 0);
  // A trailers-only answer carries grpc-status in the headers.
  const raw = trailers["grpc-status"] ?? head["grpc-status"];
  if (raw === undefined) {
    throw new ProbeError(
      ProbeErrorCode.GrpcStatus,
      `gRPC health check got HTTP ${httpStatus} without a grpc-status`,
    );
  }
  const code = Number(raw);
  const message = decodeMessage(trailers["grpc-message"] ?? head["grpc-message"]);
  if (code === 12) {
    throw new ProbeError(
      ProbeErrorCode.GrpcUnimplemented,
      `the server does not implement the gRPC health protocol (grpc.health.v1.Health): ${message}`,
    );
  }
  if (code === 4) {
    throw new ProbeError(
      ProbeErrorCode.Timeout,
      `gRPC health check did not complete within ${timeoutMs}ms: ${message}`,
    );
  }
  if (code !== 0) {
    const name = CODE_NAMES[code] ?? `code ${code}`;
    throw new ProbeError(
      ProbeErrorCode.GrpcStatus,
      `gRPC health check of service "${service}" failed: ${name}: ${message}`,
    );
  }
  const frames = readGrpcFrames(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  const last = frames.at(-1);
  if (!last)
    throw new ProbeError(ProbeErrorCode.GrpcStatus, "gRPC health check answered OK without a message");
  return decodeGrpcHealthResponse(last);
}

function decodeMessage(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? v.join(",") : (v ?? "");
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
