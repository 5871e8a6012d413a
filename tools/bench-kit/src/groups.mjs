import { spawn, spawnSync } from "node:child_process";
import { cpus } from "node:os";

/**
 * A benchmark server running as the leader of its own process group.
 * @typedef {{ name: string, proc: import("node:child_process").ChildProcess,
 *   pid: number | undefined, stderrTail: () => string }} GroupServer
 */

/** @type {Set<GroupServer>} */
const running = new Set();
let hooked = false;

/** Whether servers and the load generator can be pinned to separate CPUs (two or more CPUs and taskset). */
export function canPin() {
  return cpus().length >= 2 && spawnSync("taskset", ["-V"]).status === 0;
}

/**
 * Whether `bin` is on the PATH.
 * @param {string} bin
 */
export function hasCommand(bin) {
  return spawnSync("sh", ["-c", `command -v ${bin}`]).status === 0;
}

/**
 * Starts `cmd args` detached, so it leads its own process group: its CPU is summed over the group and the
 * whole group is killed at exit. With `cpu` it runs under `taskset -c <cpu>` (exec keeps the pid). Keeps the
 * last 2,000 characters of stderr for error messages. The first call makes the process kill every group on
 * exit and exit with 130 on SIGINT/SIGTERM, so no server outlives the benchmark.
 * @param {string} name
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, cpu?: string }} [options]
 * @returns {GroupServer}
 */
export function startGroup(name, cmd, args, { env = {}, cpu } = {}) {
  if (!hooked) {
    hooked = true;
    process.on("exit", killAllGroups);
    for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));
  }
  const [file, argv] = cpu === undefined ? [cmd, args] : ["taskset", ["-c", cpu, cmd, ...args]];
  const proc = spawn(file, argv, {
    env: { ...process.env, ...env },
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  proc.stderr?.on("data", (d) => {
    err = (err + d).slice(-2000);
  });
  // An unknown command is reported by waitPort (with this stderr) rather than crashing the run.
  proc.on("error", (e) => {
    err = (err + String(e)).slice(-2000);
  });
  // pid is undefined when the command could not be started; it is also the group id.
  const server = { name, proc, pid: proc.pid, stderrTail: () => err };
  running.add(server);
  return server;
}

/**
 * Kills a server's whole process group at once (SIGKILL: a benchmark needs no graceful shutdown).
 * @param {GroupServer} server
 */
export function killGroup(server) {
  running.delete(server);
  if (server.pid === undefined) return;
  try {
    process.kill(-server.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Kills every group started with `startGroup` that is still listed. */
export function killAllGroups() {
  for (const server of [...running]) killGroup(server);
}
