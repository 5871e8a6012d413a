import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * TCP ports a process and its descendants listen on, read from Linux's /proc (no other platform is read:
 * elsewhere the answer is undefined, "cannot tell"). What `thaw up` says when a pod's app never answers on
 * `$PORT`: that it listens on another port, or on none.
 */
export async function listeningPorts(pid: number): Promise<number[] | undefined> {
  try {
    const inodes = new Set<string>();
    for (const p of await processTree(pid)) {
      const fds = await readdir(`/proc/${p}/fd`).catch(() => [] as string[]);
      for (const fd of fds) {
        const target = await readlink(`/proc/${p}/fd/${fd}`).catch(() => "");
        const m = /^socket:\[(\d+)\]$/.exec(target);
        if (m?.[1]) inodes.add(m[1]);
      }
    }
    if (inodes.size === 0) return [];
    const ports = new Set<number>();
    for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      const text = await readFile(table, "latin1").catch(() => "");
      for (const port of listenersIn(text, inodes)) ports.add(port);
    }
    return [...ports].sort((a, b) => a - b);
  } catch {
    return undefined;
  }
}

/** Ports of the LISTEN rows (state 0A) of a /proc/net/tcp table whose socket inode is in `inodes`. */
export function listenersIn(table: string, inodes: ReadonlySet<string>): number[] {
  const out: number[] = [];
  for (const line of table.split("\n").slice(1)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const f = line.trim().split(/\s+/);
    if (f.length < 10 || f[3] !== "0A" || !inodes.has(f[9] as string)) continue;
    const port = Number.parseInt((f[1] as string).split(":")[1] ?? "", 16);
    if (Number.isInteger(port)) out.push(port);
  }
  return out;
}

/** `pid` and every descendant, through /proc/<pid>/task/<tid>/children (bounded at 256 processes). */
async function processTree(pid: number): Promise<number[]> {
  const out: number[] = [];
  const todo = [pid];
  while (todo.length > 0 && out.length < 256) {
    const p = todo.shift() as number;
    out.push(p);
    const tasks = await readdir(`/proc/${p}/task`).catch(() => [] as string[]);
    for (const t of tasks) {
      const kids = await readFile(`/proc/${p}/task/${t}/children`, "latin1").catch(() => "");
      for (const k of kids.split(" ")) if (k.trim() !== "") todo.push(Number(k));
    }
  }
  return out;
}
