import { type ChildProcess, spawn } from "node:child_process";

// One `/bin/sh` for all pods: it keeps the list of live process groups from "+ pgid" and "- pgid" lines, and
// blocks reading its pipe from this process. The kernel closes that pipe when this process dies in any way
// (SIGKILL included), and then every group still listed is killed. The user's app is not our code, so it
// cannot be asked to watch its parent itself.
const SCRIPT = [
  "l=' '",
  'while read -r op g; do case "$op" in',
  '+) l="$l$g " ;;',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a JS template
  '-) case "$l" in *" $g "*) l="${l%% $g *} ${l#* $g }" ;; esac ;;',
  "esac; done",
  'for g in $l; do kill -s KILL -- "-$g"; done 2>/dev/null',
].join("\n");

/**
 * Kills the process groups of local pods once this process is gone. One watcher serves every pod (started
 * once, off any cold start's path); a pod's groups are added when it starts and removed when it ends, so a
 * recycled pid is never killed. Detached, so a terminal's Ctrl-C (SIGINT to the foreground group) does not
 * stop it before this process.
 */
export class Reaper {
  #cp: ChildProcess | undefined;

  /** Starts the watcher now, so the first pod does not wait for it (idempotent). */
  start(): void {
    if (this.#cp && this.#cp.exitCode === null && this.#cp.signalCode === null) return;
    const cp = spawn("/bin/sh", ["-c", SCRIPT, "thaw-pod-reaper"], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    cp.on("error", () => {});
    cp.stdin?.on("error", () => {});
    // Neither the watcher nor its pipe keeps this process alive.
    cp.unref();
    (cp.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.#cp = cp;
  }

  /** Watches the groups `pgids` (each container of a local pod leads its own group). */
  add(pgids: readonly number[]): void {
    this.start();
    this.#send("+", pgids);
  }

  /** Stops watching `pgids` (their processes ended normally). */
  remove(pgids: readonly number[]): void {
    this.#send("-", pgids);
  }

  /** Stops the watcher without killing anything (every pod ended normally). */
  dismiss(): void {
    const cp = this.#cp;
    this.#cp = undefined;
    if (cp && cp.exitCode === null && cp.signalCode === null) cp.kill("SIGKILL");
  }

  #send(op: "+" | "-", pgids: readonly number[]): void {
    const groups = pgids.filter((p) => Number.isInteger(p) && p > 1);
    if (groups.length === 0 || !this.#cp?.stdin || this.#cp.stdin.destroyed) return;
    this.#cp.stdin.write(groups.map((g) => `${op} ${g}\n`).join(""));
  }
}
