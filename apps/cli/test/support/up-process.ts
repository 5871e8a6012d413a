import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
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
    await until(() => listening.test(this.out), 20_000, "thaw up to listen");
    const m = listening.exec(this.out);
    this.url = (m?.[1] ?? m?.[2]) as string;
    return this.url;
  }
  exited(): Promise<number | null> {
    if (this.proc.exitCode !== null) return Promise.resolve(this.proc.exitCode);
    return new Promise((r) => this.proc.once("exit", (code) => r(code)));
  }
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
    (pid) => /echo-app\.mjs|queue-proxy/.test(cmdline(pid)) && !isWaitingSpare(pid),
  );
}

/**
 * True for a spare queue-proxy no pod has taken yet, booting or waiting (the local scaler's spare mode):
 * a taken one is titled `thaw-queue-proxy <pod>`, a waiting one `thaw-spare-qp`.
 */
export function isWaitingSpare(pid: number): boolean {
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
