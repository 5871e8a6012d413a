/**
 * @thaw/protocol: Knative's data-plane protocol as pure functions and constants, shared by every part of
 * Thaw (knative-spec.md sections a, c.8, d.1 and f), plus the activation API's types.
 */
export * from "./activation-api.js";
export * from "./activator-probe.js";
export * from "./address-range.js";
export * from "./bounded-body.js";
export * from "./capped-read.js";
export * from "./classify.js";
export * from "./cold-start-record.js";
export * from "./drainer.js";
export * from "./error-code.js";
export * from "./event-stream.js";
export * from "./forward-headers.js";
export * from "./forwarded.js";
export * from "./forwarded-list.js";
export * from "./forwarding-headers.js";
export * from "./head-timeouts.js";
export * from "./headers.js";
export * from "./hop-by-hop.js";
export * from "./local-only.js";
export * from "./network-probe.js";
export * from "./problem-note.js";
export * from "./prometheus.js";
export { type DecodeResult, ProtoErrorCode, type ProtoIssue } from "./proto-reader.js";
export * from "./queue-health.js";
export * from "./request-target.js";
export * from "./revision-id.js";
export * from "./revision-lookup.js";
export * from "./route-tag.js";
export * from "./scale-webhook.js";
export * from "./scale-webhook-receive.js";
export * from "./scale-webhook-send.js";
export * from "./stat.js";
export * from "./stat-codec.js";
export * from "./token.js";
export * from "./tracing.js";
export * from "./tracing-config.js";
export * from "./wake-hint.js";
