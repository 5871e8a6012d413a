import { type ChildProcess, spawn } from "node:child_process";

// Blocks on a pipe from this process; the kernel closes it when this process dies in any way (SIGKILL
// included), and then every group named is killed. The user's app is not our code, so it cannot be
// asked to watch its parent itself.
const SCRIPT = 'read _; for g in "$@"; do kill -s KILL -- "-$g"; done 2>/dev/null';

/** A tiny `/bin/sh` watcher that kills process groups once this process is gone. */
export interface Reaper {
  /** Stops the watcher without killing anything (the groups ended normally). */
  dismiss(): void;
}

/**
 * Starts a reaper for the process groups `pgids` (each container of a local pod leads its own group). It is
 * detached, so a terminal's Ctrl-C (SIGINT to the foreground group) does not stop it before this process.
 */
export function startReaper(pgids: readonly number[]): Reaper {
  const groups = pgids.filter((p) => Number.isInteger(p) && p > 1);
  if (groups.length === 0) return { dismiss() {} };
  const cp: ChildProcess = spawn("/bin/sh", ["-c", SCRIPT, "thaw-pod-reaper", ...groups.map(String)], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  cp.on("error", () => {});
  cp.stdin?.on("error", () => {});
  // Neither the watcher nor its pipe keeps this process alive.
  cp.unref();
  (cp.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    dismiss() {
      if (cp.exitCode === null && cp.signalCode === null) cp.kill("SIGKILL");
    },
  };
}
