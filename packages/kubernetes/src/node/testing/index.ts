/**
 * @thaw/kubernetes/node/testing: an emulated Kubernetes API server: no real API server runs here. A
 * loopback HTTP server that follows the documented semantics of the API for the objects Thaw uses, so
 * @kubernetes/client-node talks to it through an ordinary KubeConfig (`kubeConfigFor({ server: url })`),
 * plus builders for the objects tests put into it.
 */
export { EmulatedApiServer, type EmulatedApiServerOptions, type RecordedRequest } from "./api-server.js";
export { deployment, endpointSlice, type SliceEndpoint } from "./builders.js";
export type { Fault, FaultMatch } from "./faults.js";
export { matchesLabels, parseLabelSelector } from "./label-selector.js";
export { type ApiObject, type ObjectInput, Store, type StoreEvent } from "./store.js";
export { waitFor } from "./wait.js";
export type { OpenWatch } from "./watch-stream.js";
