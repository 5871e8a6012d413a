import { LAUNCHER_NAME } from "./spare-launcher.js";

/**
 * Why a local pod is not serving, in words for the person who wrote the service: what `thaw up` prints, the
 * dashboard shows, and held requests are answered with. `failing` problems will not go away by waiting (held
 * requests are answered at once); a `waiting` one may (a slow start), so it only explains a timeout.
 */
export interface PodProblem {
  severity: "failing" | "waiting";
  message: string;
}

/** Why a revision has no ready pod, when it can be told, with its crash-loop back-off. */
export interface RevisionProblem extends PodProblem {
  /** Pods in a row that died before they were ever ready. */
  crashes: number;
  /** How long until the next pod starts, if one waits out the crash-loop back-off (ms). */
  restartInMs?: number;
}

/**
 * `problem` as the revision's, its message ending with the crash loop's state when pods keep dying (the
 * message changes with each failed start, not with time: a change is news).
 */
export function withBackoff(
  problem: PodProblem,
  crashes: number,
  backoffMs: number,
  restartInMs: number | undefined,
): RevisionProblem {
  let message = problem.message;
  if (crashes > 1) {
    message += ` (crash loop: ${crashes} starts in a row failed; restarting after ${fmtSeconds(backoffMs)})`;
  }
  const out: RevisionProblem = { severity: problem.severity, message, crashes };
  if (restartInMs !== undefined) out.restartInMs = restartInMs;
  return out;
}

/** Exit codes a shell gives a command it could not run (POSIX: 127 not found, 126 not executable). */
const NOT_FOUND = 127;
const NOT_EXECUTABLE = 126;

/** The command a shell could not find, from its message (dash `sh: 1: x: not found`, bash `x: command not found`). */
const SHELL_NOT_FOUND = /(?:^|: )([^\s:]+): (?:command )?not found$/;

/**
 * The problem of an app that exited on its own before its pod was ready: its exit code or signal, what that
 * code usually means, and the last lines it printed (not the spare launcher's own, which name no app).
 */
export function exitProblem(
  exit: number | string,
  command: readonly string[],
  lastLines: readonly string[],
): PodProblem {
  const program = command[0] ?? "";
  const said = lastLines.filter((l) => !l.startsWith(`${LAUNCHER_NAME}:`));
  const missing =
    exit === NOT_FOUND ? lastLines.map((l) => SHELL_NOT_FOUND.exec(l)?.[1]).findLast(Boolean) : undefined;
  let message: string;
  if (
    exit === "ENOENT" ||
    missing === program ||
    (exit === NOT_FOUND && !missing && /No such file/i.test(lastLines.join("\n")))
  ) {
    message = `no such command: ${program} (run.command[0]: not found on PATH or relative to run.cwd)`;
  } else if (missing) {
    // The program ran (a shell, a script) and it could not find a command it runs.
    message = `no such command: ${missing}, run by ${program} (exit code 127)`;
  } else if (exit === NOT_EXECUTABLE) {
    message = `cannot run ${program}: it is not an executable program (run.command[0]; check its mode)`;
  } else {
    message = `app ${ended(exit)} before it was ready`;
  }
  const tail = said.slice(-5);
  if (tail.length > 0) message += `; last output: ${tail.join(" | ")}`;
  return { severity: "failing", message };
}

/** How a process ended, in words. */
function ended(exit: number | string): string {
  return typeof exit === "number" ? `exited with code ${exit}` : `was killed by ${exit}`;
}

/**
 * The problem of a pod whose queue-proxy ended on its own before the pod was ready (its app was then
 * stopped, so the app's exit says nothing): how it ended and its last lines.
 */
export function queueProxyExitProblem(exit: number | string, lastLines: readonly string[]): PodProblem {
  const tail = lastLines.slice(-5);
  const said = tail.length > 0 ? `; last output: ${tail.join(" | ")}` : "";
  return { severity: "failing", message: `queue-proxy ${ended(exit)} before the pod was ready${said}` };
}

/**
 * The report of a pod whose app or queue-proxy ended on its own after it had served (a crash, or a
 * container stopped by someone else): which, how it ended and its last lines. `waiting`: a new pod is on
 * its way.
 */
export function diedProblem(
  pod: string,
  which: "app" | "queue-proxy",
  exit: number | string,
  lastLines: readonly string[],
): PodProblem {
  const tail = lastLines.slice(-3);
  const said = tail.length > 0 ? `; last output: ${tail.join(" | ")}` : "";
  return {
    severity: "waiting",
    message: `pod ${pod} ended on its own after it was ready (its ${which} ${ended(exit)}${said}); a new pod replaces it`,
  };
}

/** Appends an output line to `tail`, keeping the last 20 (each cut at 300 characters). */
export function keepTail(tail: string[], line: string): void {
  tail.push(line.length > 300 ? `${line.slice(0, 300)}...` : line);
  if (tail.length > 20) tail.shift();
}

/**
 * The problem of an app that runs but does not answer on `$PORT` (the port the queue-proxy forwards to):
 * listening elsewhere is a mistake waiting will not fix; listening nowhere may be a slow start.
 */
export function portProblem(
  portEnv: string,
  port: number,
  listening: readonly number[],
): PodProblem | undefined {
  if (listening.includes(port)) return undefined;
  if (listening.length > 0) {
    const where = listening.join(", ");
    return {
      severity: "failing",
      message: `app listens on ${where}, not on $${portEnv}=${port}: read the port from the ${portEnv} environment variable`,
    };
  }
  return {
    severity: "waiting",
    message: `app is running but has not listened on $${portEnv}=${port} yet`,
  };
}

function fmtSeconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
