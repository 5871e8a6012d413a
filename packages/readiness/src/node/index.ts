/** @thaw/readiness/node: the probe transport for Node (HTTP/1.1, h2c, TCP, gRPC health). */
export { grpcHealthCheck } from "./grpc.js";
export { h2cGet } from "./h2c.js";
export { http1Get } from "./http1.js";
export {
  type ListenRow,
  listenRows,
  namespaceListeners,
  othersListening,
  socketInodes,
} from "./listeners.js";
export { tcpConnect } from "./tcp.js";
export { createNodeTransport, nodeTransport } from "./transport.js";
