/** @thaw/config: thaw.config.yaml's schema, shared by `thaw up`, the activator, the hook and the autoscaler. */
export { bodyBudgetLimits } from "./body-buffer.js";
export { parseDurationMs } from "./duration.js";
export { type ConfigIssue, type ConfigResult, formatIssues, parseConfig } from "./parse.js";
export { parseConfigText } from "./parse-text.js";
export { configReference, type ReferenceRow, renderConfigReference } from "./reference.js";
export { configSchema, type ServiceConfig, type ThawConfig } from "./schema.js";
