// The helpers the app benchmarks (apps/*/bench) share; plain ESM, Node only, no dependencies but
// @thaw/command-line (benchCommandLine: every bench's --help and unknown flags).
export { BENCH_ENV, benchCommandLine } from "./command-line.mjs";
export { groupCpuMicros, groupCpuTicks, microsPerTick } from "./cpu.mjs";
export { canPin, hasCommand, killAllGroups, killGroup, startGroup } from "./groups.mjs";
export { growth, slopeOf } from "./growth.mjs";
export { canConnect, freePort, waitPort } from "./ports.mjs";
export {
  cpuProfileArgs,
  printCpuProfile,
  printHeapSnapshot,
  profileDir,
  profileInProcess,
  profileServer,
  shouldProfile,
} from "./profile.mjs";
export { sleep } from "./sleep.mjs";
export { fixed, median, quantile } from "./stats.mjs";
export { curve, formatValue, verdict, verdictFile } from "./verdict.mjs";
export { parseWrk, runWrk, toMs, wrkArgs } from "./wrk.mjs";
