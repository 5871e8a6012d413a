import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { run } from "./netns.js";

/** The sandbox image every pod's pause container runs; built here, never pulled. */
export const PAUSE_IMAGE = "localhost/thaw/pause:catatonit";

/** An image of this host's own `node` and the libraries it links: runs `node -e <script>` pods. */
export const HOST_NODE_IMAGE = "localhost/thaw/host-node:local";

const sha256 = (b: Buffer) => createHash("sha256").update(b).digest("hex");
// Fixed owner and time so the same files give the same image digest on every run.
const TAR = ["--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "--sort=name"];

/**
 * Writes `<dir>/<file>.tar`, a one-layer Docker-archive image for `ctr images import`: each host file
 * copied to the same path inside, plus an image config. No registry, no podman.
 */
export function writeImageArchive(
  dir: string,
  file: string,
  name: string,
  files: string[],
  config: { Entrypoint?: string[]; Cmd?: string[]; User?: string },
): string {
  const work = join(dir, `${file}-image`);
  rmSync(work, { recursive: true, force: true });
  for (const f of files) {
    if (!existsSync(f)) throw new Error(`${f} is missing: needed in image ${name}`);
    mkdirSync(join(work, "rootfs", dirname(f)), { recursive: true });
    copyFileSync(f, join(work, "rootfs", f));
  }
  mkdirSync(join(work, "rootfs", "tmp"), { recursive: true });
  run("tar", ["-C", join(work, "rootfs"), ...TAR, "-cf", join(work, "layer.tar"), "."]);
  const layer = readFileSync(join(work, "layer.tar"));
  const cfg = Buffer.from(
    JSON.stringify({
      architecture: "amd64",
      os: "linux",
      config,
      rootfs: { type: "layers", diff_ids: [`sha256:${sha256(layer)}`] },
    }),
  );
  const configName = `${sha256(cfg)}.json`;
  writeFileSync(join(work, configName), cfg);
  writeFileSync(
    join(work, "manifest.json"),
    JSON.stringify([{ Config: configName, RepoTags: [name], Layers: ["layer.tar"] }]),
  );
  const out = join(dir, `${file}.tar`);
  run("tar", ["-C", work, ...TAR, "-cf", out, "manifest.json", configName, "layer.tar"]);
  rmSync(work, { recursive: true, force: true });
  return out;
}

/** Debian's static catatonit as `/usr/bin/catatonit -P`: a pause process that sleeps, reaps, exits on SIGTERM. */
export function buildPauseImage(dir: string): string {
  if (!existsSync("/usr/bin/catatonit")) {
    throw new Error("/usr/bin/catatonit is missing (the pods' pause process): apt-get install catatonit");
  }
  return writeImageArchive(dir, "pause", PAUSE_IMAGE, ["/usr/bin/catatonit"], {
    Entrypoint: ["/usr/bin/catatonit", "-P"],
    User: "65535:65535",
  });
}

/** This host's `node` with the shared libraries `ldd` lists (about 100 MB): a runtime for script pods. */
export function buildHostNodeImage(dir: string): string {
  const node = process.execPath;
  const libs = [...run("ldd", [node]).matchAll(/(\/\S+\.so[.\d]*)/g)].map((m) => m[1] as string);
  return writeImageArchive(dir, "host-node", HOST_NODE_IMAGE, [node, ...new Set(libs)], {
    Entrypoint: [node],
    User: "65534:65534",
  });
}
