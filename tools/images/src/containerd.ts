/**
 * Puts built images into a containerd (the kubelet's image store, namespace k8s.io): one `podman save`
 * docker-archive holding them all, then `ctr images import`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Podman, runTool, tail } from "./podman.js";

/** Saves `refs` with podman and imports them into the containerd at `address` (its socket path). */
export async function importIntoContainerd(
  pm: Podman,
  address: string,
  refs: string[],
  opts: { namespace?: string; log?: (line: string) => void } = {},
): Promise<void> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const dir = mkdtempSync(join(tmpdir(), "thaw-images-save-"));
  const archive = join(dir, "images.tar");
  const t = Date.now();
  try {
    // docker-archive is the format that holds several images in one file, and ctr reads it.
    const save = await runTool(pm, "podman", [
      "save",
      "--signature-policy",
      pm.policy,
      "--multi-image-archive",
      "--format",
      "docker-archive",
      "-o",
      archive,
      ...refs,
    ]);
    if (save.code !== 0) throw new Error(`podman save ${refs.join(" ")} failed:\n${tail(save.log)}`);
    const imp = await runTool(pm, "ctr", [
      "--address",
      address,
      "-n",
      opts.namespace ?? "k8s.io",
      "images",
      "import",
      archive,
    ]);
    if (imp.code !== 0)
      throw new Error(
        `ctr images import into ${address} failed:\n${tail(imp.log)}\n--- fix: is containerd running with its socket at ${address}? (ctr --address ${address} version)`,
      );
    log(
      `images: imported ${refs.length} images into containerd at ${address} in ${((Date.now() - t) / 1000).toFixed(1)} s`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
