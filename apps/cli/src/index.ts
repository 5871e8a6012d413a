/** thaw (apps/cli): `thaw up`, `thaw validate` and `thaw k8s render`, also as functions for tests and embedding. */
export { type ResolvedService, resolveServices } from "./config-check.js";
export { formatRecord, LOG_FORMATS } from "./format.js";
export { ACTIVATOR_UPSTREAM, createGateway, type GatewayDeps } from "./gateway.js";
export { k8sRenderCommand } from "./k8s/command.js";
export { DEFAULT_RENDER_OPTIONS, type RenderOptions } from "./k8s/options.js";
export { type RenderedFiles, renderKubernetes, toYaml } from "./k8s/render.js";
export { type Stack, type StackOptions, startStack } from "./stack.js";
export { type UpOptions, upCommand } from "./up.js";
export { type LoadedConfig, loadAndCheck, validateCommand } from "./validate.js";
