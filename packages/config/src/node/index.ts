/** @thaw/config/node: reads thaw.config.yaml from disk. */
export { loadConfigFile } from "./load.js";
