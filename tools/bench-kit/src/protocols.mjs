// `@thaw/bench-kit/protocols`: the protocol app's path, its clients and the matrix that checks them all.
export * from "./protocol-clients.mjs";
export { exerciseProtocols, PROTOCOLS } from "./protocol-matrix.mjs";
