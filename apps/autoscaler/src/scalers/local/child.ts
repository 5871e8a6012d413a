import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** A child process running in its own process group, so stopping it also stops whatever it started. */
export interface GroupChild {
  readonly pid: number;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  readonly exited: Promise<number | string>;
  /** True until the process exited. */
  readonly alive: boolean;
  /** Sends `signal` to the whole group; no-op once exited. */
  signal(signal: NodeJS.Signals): void;
  /** Writes `line` and a newline to its stdin; false when stdin is not piped or already closed. */
  writeLine(line: string): boolean;
}

/** Every live group, so a dying parent can take them along (see {@link killAllGroups}). */
const live = new Set<GroupChild>();

/** Options of {@link spawnGroup}. */
export interface SpawnOptions {
  env: Record<string, string | undefined>;
  cwd?: string;
  /** Each line of stdout and stderr. */
  onLine?: (stream: "stdout" | "stderr", line: string) => void;
  /** Pipe stdin (for {@link GroupChild.writeLine}); default: no stdin. */
  stdin?: boolean;
}

/** Starts `command` (argv, no shell) as a process-group leader with piped output. */
export function spawnGroup(command: readonly string[], opts: SpawnOptions): GroupChild {
  const [file, ...args] = command;
  if (!file) throw new Error("spawnGroup: empty command");
  const cp: ChildProcess = spawn(file, args, {
    env: opts.env as NodeJS.ProcessEnv,
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
    detached: true,
    stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"],
  });
  // A child that exits before reading its stdin makes a write fail with EPIPE: its exit is what counts.
  cp.stdin?.on("error", () => {});
  let alive = true;
  const exited = new Promise<number | string>((resolve) => {
    cp.once("error", (err) => {
      opts.onLine?.("stderr", `cannot start ${file}: ${err.message}`);
      alive = false;
      resolve("ENOENT");
    });
    cp.once("exit", (code, sig) => {
      alive = false;
      resolve(code ?? sig ?? "unknown");
    });
  });
  for (const stream of ["stdout", "stderr"] as const) {
    const src = cp[stream];
    if (!src) continue;
    const rl = createInterface({ input: src });
    rl.on("line", (line) => opts.onLine?.(stream, line));
  }
  const child: GroupChild = {
    pid: cp.pid ?? -1,
    writeLine(line) {
      if (!alive || !cp.stdin || cp.stdin.destroyed) return false;
      cp.stdin.write(`${line}\n`);
      return true;
    },
    exited,
    get alive() {
      return alive;
    },
    signal(signal) {
      if (!alive || child.pid <= 0) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        try {
          cp.kill(signal);
        } catch {
          // Already gone between the check and the kill.
        }
      }
    },
  };
  live.add(child);
  void exited.then(() => live.delete(child));
  return child;
}

/** SIGKILLs every live group at once: the last resort when the parent exits without an orderly stop. */
export function killAllGroups(): number {
  let n = 0;
  for (const c of live) {
    c.signal("SIGKILL");
    n++;
  }
  return n;
}

/** Number of live child groups (tests check that nothing is left). */
export function liveGroupCount(): number {
  return live.size;
}

let hooked = false;
/** Makes a normal or crashing exit of this process take every child group along (idempotent). */
export function killGroupsOnExit(): void {
  if (hooked) return;
  hooked = true;
  process.on("exit", () => killAllGroups());
}
