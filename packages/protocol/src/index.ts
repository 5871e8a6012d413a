/**
 * @thaw/protocol: Knative's data-plane protocol as pure functions and constants, shared by every part of
 * Thaw (knative-spec.md sections a and f).
 */
export * from "./headers.js";
export * from "./stat.js";
