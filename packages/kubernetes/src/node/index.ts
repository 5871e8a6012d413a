/**
 * @thaw/kubernetes/node: the Kubernetes client side on @kubernetes/client-node: list-then-watch informers
 * (EndpointSlices shared per Service, one Deployment, one Service, a workload's pods and their Warning Events), the reconciling scale writer and Lease leader election.
 */
export { type ApiFailure, apiFailure } from "./api-error.js";
export { DeploymentReader, type DeploymentReaderOptions, type DeploymentView } from "./deployment-reader.js";
export { EndpointSliceHub, type EndpointSliceHubOptions, type ServiceRef } from "./endpoint-slices.js";
export { Informer, type InformerOptions, type ListResult } from "./informer.js";
export { type KubeConfigSource, kubeConfigFor } from "./kube-config.js";
export { LeaderElector, type LeaderElectorOptions } from "./leader-elector.js";
export { type Logger, silentLogger } from "./logger.js";
export { PodEventHub, type PodEventHubOptions } from "./pod-event-hub.js";
export { type PodWatchOptions, watchPods } from "./pod-watch.js";
export {
  NotLeaderError,
  ScaleError,
  ScaleWriter,
  type ScaleWriterOptions,
  type ScaleWriterStatus,
} from "./scale-writer.js";
export { ServiceReader, type ServiceReaderOptions } from "./service-reader.js";
