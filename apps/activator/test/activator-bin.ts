import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../bin/thaw-activator.mjs", import.meta.url));

/** A running `thaw-activator` bin and the port it listens on. */
export interface ActivatorBin {
  child: ChildProcess;
  port: number;
}

/**
 * Starts the real `thaw-activator` bin on 127.0.0.1 (a free port) with `args`, serving one revision
 * (default/hello unless `revision` says otherwise, with its other THAW_REVISIONS fields) at `endpoints`;
 * resolves once its "listening" line names the port. A bin that does not get there within 20 s is killed
 * and the start rejects with its output.
 */
export async function startActivatorBin(
  args: string[],
  endpoints: string[],
  revision: Record<string, unknown> = { namespace: "default", name: "hello" },
): Promise<ActivatorBin> {
  const child = spawn(process.execPath, [bin, "--host", "127.0.0.1", "--port", "0", ...args], {
    env: {
      ...process.env,
      THAW_REVISIONS: JSON.stringify([{ ...revision, endpoints }]),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`activator did not start: ${out}`));
    }, 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /"listening".*?"port":(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
  return { child, port };
}
