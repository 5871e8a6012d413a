import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time (user + system, in clock ticks) of every live process in process group `pgid`, from /proc.
 * A server started with `startGroup` leads its own group, so its pid is the pgid; children it forks count too.
 * @param {number} pgid
 */
export function groupCpuTicks(pgid) {
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name, which may itself contain spaces and parentheses.
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[2]) === pgid) ticks += Number(f[11]) + Number(f[12]); // pgrp; utime + stime
    } catch {
      // The process exited between readdir and read.
    }
  }
  return ticks;
}

/** @type {number | undefined} */
let tickMicros;

/** Microseconds in one clock tick (getconf CLK_TCK, 100 when it cannot be asked). */
export function microsPerTick() {
  tickMicros ??= 1e6 / Number(spawnSync("getconf", ["CLK_TCK"]).stdout?.toString().trim() || 100);
  return tickMicros;
}

/**
 * CPU time of process group `pgid` so far, in microseconds.
 * @param {number} pgid
 */
export function groupCpuMicros(pgid) {
  return groupCpuTicks(pgid) * microsPerTick();
}
