import { readdir, readFile } from "node:fs/promises";
import { namespaceListeners, socketInodes } from "@thaw/readiness/node";

/**
 * TCP ports a process and its descendants listen on, read from Linux's /proc (no other platform is read:
 * elsewhere the answer is undefined, "cannot tell"). What `thaw up` says when a pod's app never answers on
 * `$PORT`: that it listens on another port, or on none.
 */
export async function listeningPorts(pid: number): Promise<number[] | undefined> {
  try {
    const inodes = new Set<string>();
    for (const p of await processTree(pid)) for (const i of await socketInodes(p)) inodes.add(i);
    if (inodes.size === 0) return [];
    const rows = await namespaceListeners();
    if (rows === undefined) return undefined;
    return [...new Set(rows.filter((r) => inodes.has(r.inode)).map((r) => r.port))].sort((a, b) => a - b);
  } catch {
    return undefined;
  }
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
