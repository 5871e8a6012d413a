import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const bin = join(here, "../../dist/main.js");

/** Processes whose environment carries `marker`: the pods this run started (and thaw itself). */
export function markedPids(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").includes(marker)) out.push(Number(entry));
    } catch {
      // The process exited while we looked.
    }
  }
  return out;
}

/** Polls `cond` every 100 ms until it holds; throws after `ms`. */
export async function until(
  cond: () => Promise<boolean> | boolean,
  ms: number,
  what: string,
): Promise<number> {
  const t0 = Date.now();
  for (let i = 0; i < 10_000; i++) {
    if (await cond()) return Date.now() - t0;
    if (Date.now() - t0 > ms) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

/**
 * Waits until no process carries `marker` and each of `pids` is gone or a zombie. Both: a process in the
 * middle of exiting has already lost its environment (so `markedPids` no longer lists it) but still runs
 * (state R or D) while the kernel closes its sockets and files, which takes a while on a loaded machine.
 */
export async function untilEnded(marker: string, pids: number[], ms: number, what: string): Promise<number> {
  const running = () =>
    [...new Set([...markedPids(marker), ...pids])].filter((pid) => !["gone", "Z"].includes(stateOf(pid)));
  try {
    return await until(() => running().length === 0, ms, what);
  } catch (err) {
    const left = running().map((pid) => `${pid} (${stateOf(pid)}) ${cmdline(pid).replaceAll("\0", " ")}`);
    throw new Error(`${(err as Error).message}; still running: ${left.join("; ")}`);
  }
}

/** Waits until the first revision `thaw up` at `url` lists has `count` ready pods (its status API says so). */
export async function untilReadyPods(url: string, count: number, ms: number): Promise<number> {
  return until(
    async () => {
      const revs = (await (await fetch(`${url}/_thaw/api/revisions`)).json()) as { readyPods: number }[];
      return revs[0]?.readyPods === count;
    },
    ms,
    `${count} ready pod(s)`,
  );
}

/** A real `thaw up` child process, its output collected. */
export class Up {
  proc: ChildProcess;
  out = "";
  url = "";
  constructor(config: string, marker: string, args: readonly string[] = []) {
    this.proc = spawn(process.execPath, [bin, "up", "--config", config, ...args], {
      env: { ...process.env, THAW_E2E_MARKER: marker },
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.proc.stdout?.on("data", (d) => (this.out += d));
    this.proc.stderr?.on("data", (d) => (this.out += d));
  }
  async ready(): Promise<string> {
    // The text banner, or the JSON line of `--log-format json`.
    const listening = /gateway on (http:\/\/\S+)|"url":"(http:\/\/[^"]+)"/;
    // Bounded at 90 s: at load 14 a thaw up with containers to look up said nothing within 20 s. A process
    // that exits first fails sooner, with its output (startUp).
    const ended = () => this.proc.exitCode !== null || this.proc.signalCode !== null;
    await until(() => listening.test(this.out) || ended(), 90_000, "thaw up to listen");
    if (!listening.test(this.out)) {
      throw new Error(`thaw up ended (${this.proc.exitCode ?? this.proc.signalCode}) before it listened`);
    }
    const m = listening.exec(this.out);
    this.url = (m?.[1] ?? m?.[2]) as string;
    return this.url;
  }
  /** Resolves with the exit code once the process is gone (null when a signal ended it). */
  exited(): Promise<number | null> {
    // A process ended by a signal keeps exitCode null: signalCode says it is gone.
    if (this.proc.exitCode !== null || this.proc.signalCode !== null)
      return Promise.resolve(this.proc.exitCode);
    return new Promise((r) => this.proc.once("exit", (code) => r(code)));
  }
}

/** A `thaw up` started by {@link startUp}: the process, its marker and config dir, and its cleanup. */
export interface UpRun {
  up: Up;
  marker: string;
  dir: string;
  /** Kills thaw up and every process carrying its marker (its pods), then removes `dir`. */
  dispose(): Promise<void>;
}

/**
 * Starts `thaw up` as a child process on a config written from `lines` into a fresh temp dir (a function
 * of that dir when the config names files in it) and waits until it listens. `name` prefixes the marker
 * and the dir. When it does not come up, it is disposed of and the error carries its output.
 */
export async function startUp(
  name: string,
  lines: string[] | ((dir: string) => string[]),
  args: readonly string[] = [],
): Promise<UpRun> {
  const marker = `${name}-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const config = join(dir, "thaw.config.yaml");
  writeFileSync(config, (typeof lines === "function" ? lines(dir) : lines).join("\n"));
  const up = new Up(config, marker, args);
  const dispose = async () => {
    if (up.proc.exitCode === null && up.proc.signalCode === null) up.proc.kill("SIGKILL");
    await up.exited();
    for (const pid of markedPids(marker)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // It exited between the look and the kill.
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await up.ready();
  } catch (err) {
    await dispose();
    throw new Error(`${(err as Error).message}; thaw up said: ${up.out}`);
  }
  return { up, marker, dir, dispose };
}

/** A process's command line (NUL-separated), or "" once it is gone. */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1");
  } catch {
    return "";
  }
}

/** A process's state letter from /proc (R, S, Z, ...), or "gone". */
export function stateOf(pid: number): string {
  try {
    return /\) (\S)/.exec(readFileSync(`/proc/${pid}/stat`, "latin1"))?.[1] ?? "gone";
  } catch {
    return "gone";
  }
}

/** Pids of the pods' containers: the echo app and the queue-proxy (not thaw up, not the reapers). */
export function podPids(marker: string): number[] {
  return markedPids(marker).filter(
    (pid) => /echo-app\.mjs|queue-proxy/.test(cmdline(pid)) && !isNoPodsProcess(pid),
  );
}

/**
 * True for a process of thaw up's own that belongs to no pod: a spare queue-proxy no pod has taken yet,
 * booting or waiting (a taken one is titled `thaw-queue-proxy <pod>`, a waiting one `thaw-spare-qp`), the
 * spare app launcher (`/bin/sh … thaw-spare-app`; taken, it is the app) and the pods' reaper
 * (`/bin/sh … thaw-pod-reaper`).
 */
export function isNoPodsProcess(pid: number): boolean {
  const argv = cmdline(pid).split("\0");
  if (argv[0] === "/bin/sh" && (argv[3] === "thaw-spare-app" || argv[3] === "thaw-pod-reaper")) return true;
  if (envOf(pid, "THAW_QUEUE_PROXY_SPARE") !== "1") return false;
  return !cmdline(pid).startsWith("thaw-queue-proxy ");
}

/** Pids of the pods' app processes (the echo app's command line). */
export function appPids(marker: string): number[] {
  return markedPids(marker).filter((pid) => cmdline(pid).includes("echo-app.mjs"));
}

/** The value of `name` in a process's environment, or undefined (also once it is gone). */
export function envOf(pid: number, name: string): string | undefined {
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, "latin1")
      .split("\0")
      .find((e) => e.startsWith(`${name}=`));
    return entry?.slice(name.length + 1);
  } catch {
    return undefined;
  }
}
