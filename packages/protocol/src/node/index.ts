/** @thaw/protocol/node: the Node-only pieces of the protocol shared by Thaw's Node servers (sockets, h2). */
export * from "./client-left.js";
export * from "./credential-guard.js";
export {
  guardH2Server,
  H2_MAX_CONCURRENT_STREAMS,
  H2_MAX_RESETS,
  H2_RESET_WINDOW_MS,
  H2_SERVER_SETTINGS,
  type H2GuardOptions,
  type H2Sessions,
  h2StreamGone,
  whenH2StreamSettled,
} from "./h2-guard.js";
export * from "./lingering-close.js";
