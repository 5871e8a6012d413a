/**
 * @thaw/kubernetes: the portable half of Thaw's Kubernetes integration: pods from EndpointSlices (merged
 * across address families), Knative annotations on a Deployment, backoff, Lease records. The client code
 * (informers, scale writer, leader election) is under `./node`, the emulated API server for tests under
 * `./node/testing`.
 */
export * from "./annotations.js";
export * from "./backoff.js";
export * from "./endpoint-pods.js";
export * from "./lease-record.js";
export * from "./pod-events.js";
export * from "./pod-status.js";
export * from "./service-address.js";
export type * from "./types.js";
