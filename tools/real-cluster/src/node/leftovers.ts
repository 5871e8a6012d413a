import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { run } from "./netns.js";

// What a node leaves behind when it is torn down without the kubelet's help (a failed test, Ctrl-C):
// found by what it is (our folder, our cgroup, our socket), never by a process name.

/** PIDs of the processes whose command line contains every one of `words` (e.g. a shim's `-address <socket>`). */
export function pidsWithArgs(words: string[]): number[] {
  const pids: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const args = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0");
      if (words.every((w) => args.includes(w))) pids.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  return pids;
}

/** The cgroup v1 hierarchies mounted on this host (/sys/fs/cgroup/<name>), unified one included. */
function hierarchies(): string[] {
  return readdirSync("/sys/fs/cgroup")
    .map((h) => join("/sys/fs/cgroup", h))
    .filter((p) => {
      try {
        return statSync(join(p, "cgroup.procs")).isFile();
      } catch {
        return false;
      }
    });
}

/**
 * Makes `/<root>` in every hierarchy (the kubelet requires its cgroupRoot to exist). cpuset starts empty
 * in cgroup v1, so it gets its parent's CPUs and memory nodes, or nothing could run under it.
 */
export function makeCgroup(root: string): void {
  for (const h of hierarchies()) {
    const dir = join(h, root);
    mkdirSync(dir, { recursive: true });
    for (const f of ["cpuset.cpus", "cpuset.mems"]) {
      if (existsSync(join(dir, f))) writeFileSync(join(dir, f), readFileSync(join(h, f)));
    }
  }
}

/** Every cgroup folder under `/<root>` in every hierarchy, deepest first. */
function cgroupsUnder(root: string): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    for (const e of readdirSync(p, { withFileTypes: true })) if (e.isDirectory()) walk(join(p, e.name));
    out.push(p);
  };
  for (const h of hierarchies()) {
    try {
      walk(join(h, root));
    } catch {
      // this hierarchy has none
    }
  }
  return out;
}

/** SIGKILLs every process in the cgroups under `/<root>`, then removes those cgroups. Returns the PIDs killed. */
export function killCgroupTree(root: string): number[] {
  const pids = new Set<number>();
  for (const cg of cgroupsUnder(root)) {
    for (const line of readFileSync(join(cg, "cgroup.procs"), "utf8").split("\n"))
      if (line) pids.add(Number(line));
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  for (const cg of cgroupsUnder(root)) {
    // A cgroup can be removed once its last process is reaped; a few tries cover the kill above.
    for (let i = 0; i < 50; i++) {
      try {
        rmdirSync(cg);
        break;
      } catch {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
      }
    }
  }
  return [...pids];
}

/** Unmounts every mount point at or under `dir` (volumes, rootfs overlays, sandbox shm), deepest first. */
export function unmountUnder(dir: string): void {
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p === dir || p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) {
    try {
      run("umount", [p]);
    } catch {
      run("umount", ["-l", p]);
    }
  }
}
