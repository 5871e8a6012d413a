import { type ChildProcess, spawn } from "node:child_process";

/** A child process whose stdout and stderr are collected, so a test can wait for a line. */
export interface LoggedChild {
  child: ChildProcess;
  output(): string;
  /** Resolves with the output once `want` matches it; rejects when the process exits first or after `ms`. */
  waitFor(want: RegExp, ms?: number): Promise<string>;
  exited: Promise<number | null>;
}

/** Starts `node args...` (this machine's node) with exactly `env` plus PATH. */
export function startNode(args: string[], cwd: string, env: Record<string, string>): LoggedChild {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: "pipe",
  });
  let out = "";
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited,
    waitFor(want, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!want.test(out)) return;
          done();
          resolve(out);
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`no ${want} within ${ms} ms; output:\n${out}`));
        }, ms);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        void exited.then(() =>
          setTimeout(() => {
            if (!waiters.has(check)) return;
            done();
            if (want.test(out)) resolve(out);
            else reject(new Error(`exited before ${want}; output:\n${out}`));
          }, 50),
        );
        check();
      });
    },
  };
}

/**
 * Starts a child on a port `pick` found free, and again on a new pick if another process took that port
 * between the pick and the child's bind (it exits with EADDRINUSE): the two are not one step, and on a
 * busy machine other tests pick ports too. Three tries; resolves once `ready` is in its output.
 */
export async function startOnFreePort(
  pick: () => Promise<number>,
  start: (port: number) => LoggedChild,
  ready: RegExp,
  ms: number,
): Promise<{ run: LoggedChild; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const port = await pick();
    const run = start(port);
    try {
      await run.waitFor(ready, ms);
      return { run, port };
    } catch (e) {
      if (attempt >= 3 || !/EADDRINUSE/.test(run.output())) throw e;
    }
  }
}
