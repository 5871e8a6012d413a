/** A real node for the real-cluster harness: see the README's "A real node". */
export {
  type ColdStartMoments,
  type ColdStartPart,
  findLogLine,
  helloFirst,
  helloMs,
  parseCtrEvent,
  parseServerTiming,
  splitColdStart,
  thawShare,
} from "./cold-start-split.js";
export { type ColdStartTrace, traceColdStart } from "./cold-start-trace.js";
export { type Containerd, startContainerd } from "./containerd.js";
export { buildCoredns, COREDNS_BUILD_COMMAND, corednsBinary } from "./coredns-binary.js";
export { buildHostNodeImage, HOST_NODE_IMAGE, PAUSE_IMAGE, writeImageArchive } from "./image-archive.js";
export { createNodeNetwork, type NodeNetwork } from "./netns.js";
export { type Node, type NodeOptions, startNode } from "./node.js";
export { type NodeCluster, startNodeCluster } from "./node-cluster.js";
export { type PodPhases, watchPodPhases } from "./pod-phases.js";
export { importThawImages, RENDERED_REGISTRY } from "./thaw-images.js";
export {
  HELLO_HOST,
  installThawOnNode,
  type PodView,
  type ThawOnNode,
  type ThawOnNodeOptions,
} from "./thaw-on-node.js";
