/** @thaw/protocol/node: the Node-only pieces of the protocol (sockets). */

export * from "./credential-guard.js";
export * from "./lingering-close.js";
