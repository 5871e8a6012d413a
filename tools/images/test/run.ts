/** Test helper: a named podman container run attached, whose output a test can wait on, removed by name. */
import { spawn } from "node:child_process";
import type { Podman } from "../src/podman.js";
import { podman } from "../src/podman.js";

/** A started container. */
export interface Running {
  name: string;
  /** Resolves with the output once `want` matches; rejects if the container exits first or after `ms`. */
  waitFor(want: RegExp, ms?: number): Promise<string>;
  exited: Promise<number | null>;
  output(): string;
}

/** `podman run --rm --name <name> <args>`, attached; stop it with removeContainer(name). */
export function runContainer(pm: Podman, name: string, args: string[]): Running {
  const child = spawn("podman", ["run", "--rm", "--name", name, ...args], {
    env: pm.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out = (out + d.toString()).slice(-64_000);
    for (const w of waiters) w();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return {
    name,
    exited,
    output: () => out,
    waitFor(want, ms = 60_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`${name}: no ${want} within ${ms} ms; output:\n${out}`)),
          ms,
        );
        const finish = (err?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(out);
        };
        const check = () => {
          if (want.test(out)) finish();
        };
        waiters.add(check);
        void exited.then((code) => {
          if (waiters.has(check))
            finish(want.test(out) ? undefined : new Error(`${name} exited ${code} before ${want}:\n${out}`));
        });
        check();
      });
    },
  };
}

/** Removes a container by name, running or not (a missing one is fine). */
export async function removeContainer(pm: Podman, name: string): Promise<void> {
  await podman(pm, ["rm", "--force", "--ignore", "--time", "0", name]);
}
