#!/usr/bin/env node
/**
 * `npm run images`: builds (or reuses) the base images and every component image with podman, from the
 * repository this package sits in. Flags: --only a,b (some components), --import-containerd <socket>,
 * --sizes (also measure each image gzipped).
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildImages } from "./build.js";
import { importIntoContainerd } from "./containerd.js";
import { defaultCacheDir, setupPodman } from "./podman.js";
import { gzippedBytes } from "./sizes.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    "import-containerd": { type: "string" },
    "cache-dir": { type: "string" },
    sizes: { type: "boolean", default: false },
  },
});

try {
  const pm = setupPodman(values["cache-dir"] ?? defaultCacheDir());
  console.log(`images: cache and podman storage in ${pm.dir}`);
  const only = values.only
    ?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const result = await buildImages(pm, ROOT, { only });
  if (values.sizes) {
    for (const ref of [...result.bases.map((b) => b.ref), ...result.images.map((i) => i.ref)]) {
      console.log(`images: size ${ref}: ${((await gzippedBytes(pm, ref)) / 1e6).toFixed(1)} MB gzipped`);
    }
  }
  const address = values["import-containerd"];
  if (address)
    await importIntoContainerd(
      pm,
      address,
      result.images.map((i) => i.ref),
    );
} catch (e) {
  console.error(`images: ${(e as Error).message}`);
  process.exitCode = 1;
}
