import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run } from "./netns.js";

/** The sandbox image every pod's pause container runs; built here, never pulled. */
export const PAUSE_IMAGE = "localhost/thaw/pause:catatonit";

/** Debian's static catatonit: `-P` makes it a pause process (sleeps, reaps, exits on SIGTERM). */
export const CATATONIT = "/usr/bin/catatonit";

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
// Fixed owner and time so the same catatonit gives the same image digest on every run.
const TAR = ["--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "--sort=name"];

/**
 * Writes `<dir>/pause.tar`, a Docker-archive image of catatonit alone (about 1 MB), for
 * `ctr -n k8s.io images import`. No registry, no podman: one layer tar and its config.
 */
export function buildPauseImage(dir: string): string {
  if (!existsSync(CATATONIT))
    throw new Error(`${CATATONIT} is missing (the pods' pause process): apt-get install catatonit`);
  const work = join(dir, "pause-image");
  mkdirSync(join(work, "rootfs"), { recursive: true });
  copyFileSync(CATATONIT, join(work, "rootfs", "pause"));
  run("tar", ["-C", join(work, "rootfs"), ...TAR, "-cf", join(work, "layer.tar"), "pause"]);
  const layer = readFileSync(join(work, "layer.tar"));
  const config = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config: { Entrypoint: ["/pause", "-P"], User: "65535:65535" },
      rootfs: { type: "layers", diff_ids: [`sha256:${sha256(layer)}`] },
    }),
  );
  const configName = `${sha256(config)}.json`;
  writeFileSync(join(work, configName), config);
  const manifest = [{ Config: configName, RepoTags: [PAUSE_IMAGE], Layers: ["layer.tar"] }];
  writeFileSync(join(work, "manifest.json"), JSON.stringify(manifest));
  const out = join(dir, "pause.tar");
  run("tar", ["-C", work, ...TAR, "-cf", out, "manifest.json", configName, "layer.tar"]);
  return out;
}
