/**
 * @thaw/readiness/node/testing: loopback servers for probe tests (HTTP/1.1 and h2c, TCP, gRPC health),
 * shared by this package's tests, its conformance adapter and benchmarks, and other packages' tests.
 */
export { type GrpcAnswer, type GrpcTestServer, startGrpcHealthServer } from "./testing/grpc-server.js";
export {
  type Answer,
  type HttpServerBehaviour,
  type HttpTestServer,
  type SeenRequest,
  startHttpServer,
} from "./testing/http-server.js";
export { closedPort, startTcpServer, type TcpTestServer } from "./testing/tcp-server.js";
export { TEST_CERT, TEST_KEY } from "./testing/test-cert.js";
