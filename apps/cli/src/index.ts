/** thaw (apps/cli): `thaw up` and `thaw validate`, also as functions for tests and embedding. */
export { type ResolvedService, resolveServices } from "./config-check.js";
export { formatEvent } from "./format.js";
export { ACTIVATOR_UPSTREAM, createGateway, type GatewayDeps } from "./gateway.js";
export { type Stack, type StackOptions, startStack } from "./stack.js";
export { statusPage } from "./status-page.js";
export { type UpOptions, upCommand } from "./up.js";
export { type LoadedConfig, loadAndCheck, validateCommand } from "./validate.js";
