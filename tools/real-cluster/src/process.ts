import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One component the harness started: its PID, its log file, and how to stop it. */
export interface Component {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  /** Resolves with the exit code (or the signal's name) when the process ends. */
  readonly exited: Promise<number | string>;
  /** True once the process has ended. */
  readonly done: boolean;
  /** The last `n` lines of its log. */
  tail(n?: number): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `bin args` with stdout and stderr in `<dir>/<name>.log` (appended across restarts). */
export function startComponent(
  name: string,
  bin: string,
  args: string[],
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Component {
  const logPath = join(dir, `${name}.log`);
  const fd = openSync(logPath, "a");
  let child: ChildProcess;
  try {
    child = spawn(bin, args, { stdio: ["ignore", fd, fd], env });
  } finally {
    closeSync(fd);
  }
  let done = false;
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => {
      done = true;
      resolve(code ?? signal ?? "unknown");
    });
    child.on("error", (e) => {
      done = true;
      resolve(`spawn failed: ${e.message}`);
    });
  });
  const pid = child.pid ?? -1;
  return {
    name,
    pid,
    logPath,
    exited,
    get done() {
      return done;
    },
    tail: (n = 30) => tailLines(logPath, n),
    async stop(graceMs = 10_000) {
      if (done || pid < 0) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** The last `n` lines of a log file ("" when it does not exist). */
export function tailLines(path: string, n: number): string {
  if (!existsSync(path)) return "";
  return readFileSync(path, "utf8").trimEnd().split("\n").slice(-n).join("\n");
}
