export { type ApiTarget, apiRequest } from "./api-request.js";
export { type ClusterPki, createPki, type KeyPair } from "./certs.js";
export { type ControlPlane, type ControlPlaneOptions, startControlPlane } from "./control-plane.js";
export {
  BUILD_COMMAND,
  type BuiltBinary,
  buildK8sBinaries,
  K8S_BINARIES,
  K8S_VERSION,
  type K8sBinary,
  k8sBinaries,
  k8sCacheDir,
} from "./k8s-binaries.js";
export { type KubeconfigUser, writeKubeconfig } from "./kubeconfig.js";
export { type KubectlResult, kubectl } from "./kubectl.js";
export * from "./node/index.js";
export { freePort } from "./ports.js";
export { type Component, startComponent, tailLines } from "./process.js";
export { probe } from "./ready.js";
