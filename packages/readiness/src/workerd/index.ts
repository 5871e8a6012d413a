/** @thaw/readiness/workerd: the probe transport for workerd (fetch for HTTP, cloudflare:sockets for TCP). */
export { createWorkerdTransport, type WorkerdTransportOptions } from "./transport.js";
