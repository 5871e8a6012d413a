import { readdirSync, readFileSync } from "node:fs";

/**
 * Resident set size of one process in KiB, from /proc/<pid>/status (VmRSS); 0 once it is gone or where
 * /proc does not exist.
 * @param {number} pid
 * @returns {number}
 */
export function rssKiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Pids of `root` and every descendant (read from /proc/<pid>/stat), so a process tree such as nginx's
 * master and workers is measured as one. It reads every process's stat file: call it once, not per sample.
 * @param {number} root
 * @returns {number[]}
 */
export function processTree(root) {
  /** @type {Map<number, number[]>} */
  const children = new Map();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "latin1");
      // The command name may hold spaces and parentheses: the parent pid is the 2nd field after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      // The process exited while we looked.
    }
  }
  const out = [];
  const todo = [root];
  for (let i = 0; i < todo.length && i < 100_000; i++) {
    const pid = /** @type {number} */ (todo[i]);
    out.push(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Samples the summed RSS of named groups of processes every `intervalMs` until `stop()`: what each group
 * held when sampling began, its peak, and what it held at the end. `groups()` is asked again on every
 * sample, so processes that start later (pods) are counted from then on; it should be cheap (one
 * /proc/<pid>/status read per pid is what a sample costs), since it runs on the caller's event loop.
 * @param {() => Record<string, number[]>} groups
 * @param {number} [intervalMs]
 * @returns {{ stop(): Record<string, { beforeKiB: number, peakKiB: number, afterKiB: number }> }}
 */
export function sampleRss(groups, intervalMs = 200) {
  /** @type {Record<string, { beforeKiB: number, peakKiB: number, afterKiB: number }>} */
  const seen = {};
  const sample = () => {
    for (const [name, pids] of Object.entries(groups())) {
      const kib = pids.reduce((sum, pid) => sum + rssKiB(pid), 0);
      const s = seen[name];
      if (!s) seen[name] = { beforeKiB: kib, peakKiB: kib, afterKiB: kib };
      else {
        s.peakKiB = Math.max(s.peakKiB, kib);
        s.afterKiB = kib;
      }
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return seen;
    },
  };
}

/**
 * One line per group: `name: before X MiB, peak Y MiB, after Z MiB`.
 * @param {Record<string, { beforeKiB: number, peakKiB: number, afterKiB: number }>} report
 * @returns {string}
 */
export function formatRss(report) {
  const mib = (/** @type {number} */ k) => (k / 1024).toFixed(1);
  return Object.entries(report)
    .map(
      ([n, r]) =>
        `${n}: before ${mib(r.beforeKiB)} MiB, peak ${mib(r.peakKiB)} MiB, after ${mib(r.afterKiB)} MiB`,
    )
    .join("\n");
}
