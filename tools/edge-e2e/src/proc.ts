import { type ChildProcess, spawn } from "node:child_process";

/** A child process whose output is kept, for bins the docs tell users to run. */
export interface Proc {
  child: ChildProcess;
  /** stdout and stderr so far. */
  out(): string;
  /** Resolves with the first match of `re` in the output; rejects after `timeoutMs` or when the process exits. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `cmd args` with `env` added to this process's environment. */
export function start(cmd: string, args: string[], env: Record<string, string> = {}, cwd?: string): Proc {
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, cwd, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout?.on("data", (b: Buffer) => {
    text += b.toString();
  });
  child.stderr?.on("data", (b: Buffer) => {
    text += b.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  return {
    child,
    out: () => text,
    async waitFor(re, timeoutMs = 45_000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const m = text.match(re);
        if (m) return m;
        if (child.exitCode !== null || child.signalCode !== null) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`${cmd} ${args.join(" ")}: no ${re} in its output:\n${text}`);
    },
    async stop(graceMs = 15_000) {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
}
