/** @thaw/protocol/node: the Node-only pieces of the protocol (sockets). */
export * from "./lingering-close.js";
