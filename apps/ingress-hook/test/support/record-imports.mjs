// `node --import` this file with THAW_IMPORT_LOG set to record which @opentelemetry modules load.
import { register } from "node:module";

if (process.env.THAW_IMPORT_LOG) {
  register("./import-log-hooks.mjs", import.meta.url, { data: { log: process.env.THAW_IMPORT_LOG } });
}
