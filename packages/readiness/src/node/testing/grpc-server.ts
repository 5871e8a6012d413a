import http2 from "node:http2";
import type net from "node:net";
import {
  decodeGrpcHealthRequest,
  encodeGrpcHealthResponse,
  GRPC_HEALTH_CHECK_PATH,
  grpcFrame,
  readGrpcFrames,
} from "../../grpc-health.js";
import type { GrpcServingStatus } from "../../transport.js";

/** How the test health service answers a Check for `service`. */
export type GrpcAnswer =
  | GrpcServingStatus
  | { code: number; message: string }
  | { delayMs: number; status: GrpcServingStatus };

/** A loopback gRPC server that implements only grpc.health.v1.Health/Check. */
export interface GrpcTestServer {
  host: string;
  port: number;
  calls: { service: string; userAgent: string }[];
  close(): Promise<void>;
}

/** Starts a gRPC health server on 127.0.0.1 (port 0); other methods answer Unimplemented. */
export async function startGrpcHealthServer(
  answer: (service: string) => GrpcAnswer,
): Promise<GrpcTestServer> {
  const calls: { service: string; userAgent: string }[] = [];
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.on("close", () => sessions.delete(s));
  });
  server.on("stream", (stream, headers) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("error", () => {});
    stream.on("end", () => {
      if (headers[":path"] !== GRPC_HEALTH_CHECK_PATH) {
        stream.respond(
          {
            ":status": 200,
            "content-type": "application/grpc",
            "grpc-status": "12",
            "grpc-message": "unknown method",
          },
          { endStream: true },
        );
        return;
      }
      const body = Buffer.concat(chunks);
      const msg =
        readGrpcFrames(new Uint8Array(body.buffer, body.byteOffset, body.byteLength))[0] ?? new Uint8Array(0);
      const service = decodeGrpcHealthRequest(msg);
      calls.push({ service, userAgent: String(headers["user-agent"] ?? "") });
      const a = answer(service);
      const reply = (status: GrpcServingStatus) => {
        if (stream.destroyed) return;
        stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
        stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
        stream.end(grpcFrame(encodeGrpcHealthResponse(status)));
      };
      if (typeof a === "string") return reply(a);
      if ("delayMs" in a) return void setTimeout(() => reply(a.status), a.delayMs);
      stream.respond(
        {
          ":status": 200,
          "content-type": "application/grpc",
          "grpc-status": String(a.code),
          "grpc-message": encodeURIComponent(a.message),
        },
        { endStream: true },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: "127.0.0.1",
    port: (server.address() as net.AddressInfo).port,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}
