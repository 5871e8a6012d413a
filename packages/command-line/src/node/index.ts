/** Node side of @thaw/command-line: answer --help, --version and mistakes on the process's streams. */
export { exitWithUsageError, packageVersion, readCommandLine } from "./run.js";
