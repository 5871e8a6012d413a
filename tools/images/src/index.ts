/** @thaw/images: Thaw's container images built with podman, no registry; see README.md. */
export { type BaseImage, type BaseInputs, baseInputs, ensureBase } from "./base.js";
export { BUILD_STAGE, type BuildResult, type BuiltImage, buildImages, imageRef } from "./build.js";
export { COMPONENTS, type Component } from "./components.js";
export { importIntoContainerd } from "./containerd.js";
export { type Layout, planLayout, writeLayout } from "./deploy.js";
export {
  defaultCacheDir,
  type Podman,
  podman,
  type RunResult,
  runTool,
  setupPodman,
  tail,
  ULIMITS,
} from "./podman.js";
export { gzippedBytes } from "./sizes.js";
