/** @thaw/command-line: every Thaw bin's flags and variables as one table, read and explained the same way. */
export { closest, editDistance } from "./closest.js";
export { helpText } from "./help.js";
export { parseCommandLine, withFlagsOverEnv } from "./parse.js";
export { BUILT_IN_FLAGS, type Command, type EnvVar, type Flag, type Parsed } from "./spec.js";
export { unknownKeyMessages } from "./unknown-keys.js";
