/** Image sizes as shipped: the saved image (docker-archive) through gzip, counted in bytes. */
import { spawn } from "node:child_process";
import { createGzip } from "node:zlib";
import type { Podman } from "./podman.js";

/** Bytes of `podman save <ref>` after gzip: about what a registry would transfer. */
export function gzippedBytes(pm: Podman, ref: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      "podman",
      ["save", "--signature-policy", pm.policy, "--format", "docker-archive", ref],
      {
        env: pm.env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let bytes = 0;
    let err = "";
    const gz = createGzip({ level: 6 });
    child.stdout.pipe(gz).on("data", (c: Buffer) => {
      bytes += c.length;
    });
    child.stderr.on("data", (c: Buffer) => {
      err = (err + c.toString()).slice(-2000);
    });
    child.on("error", reject);
    gz.on("end", () => resolve(bytes));
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`podman save ${ref} exited ${code}: ${err}`));
    });
  });
}
