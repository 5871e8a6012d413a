/**
 * @thaw/queue-proxy/http1: the queue-proxy's own keep-alive HTTP/1.1 client, for other proxies (the
 * activator, `thaw up`) to reach their pods with: `H1Upstream` is one server's pool, `H1Client` one pool per
 * destination. Loading it loads none of the sidecar.
 */
export {
  type DialPolicy,
  DialTimeoutError,
  KNATIVE_DIAL_POLICY,
} from "./dial.js";
export { H1Client, type H1ClientOptions, splitHostPort } from "./h1-client.js";
export { MAX_HEAD_BYTES, UpstreamProtocolError } from "./h1-response-parser.js";
export {
  H1Upstream,
  type H1UpstreamOptions,
  IDLE_KEEP_MS,
  type UpstreamRequest,
} from "./h1-upstream.js";
export { BODY_CHUNKED, BODY_NONE, type UpstreamSink } from "./ports.js";
export { fieldList, ResponseFields, type ResponseHeaders } from "./response-fields.js";
export {
  DEFAULT_TUNNEL_IDLE_MS,
  relayUpgrade,
  type UpgradeOutcome,
  type UpgradeRelay,
} from "./upgrade-relay.js";
