#!/usr/bin/env node
/**
 * `npm run images`: builds (or reuses) the base images and every component image with podman, from the
 * repository this package sits in. Flags: --only a,b (some components), --import-containerd <socket>,
 * --sizes (also measure each image gzipped).
 */
import { fileURLToPath } from "node:url";
import type { Command } from "@thaw/command-line";
import { closest } from "@thaw/command-line";
import { exitWithUsageError, readCommandLine } from "@thaw/command-line/node";
import { buildImages } from "./build.js";
import { COMPONENTS } from "./components.js";
import { importIntoContainerd } from "./containerd.js";
import { defaultCacheDir, setupPodman } from "./podman.js";
import { gzippedBytes } from "./sizes.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const IMAGES_COMMAND: Command = {
  name: "npm run images --",
  summary:
    "builds (or reuses) the Node base images and every component image from infra/docker with podman, from this checkout; no container registry is used, and the build stage reaches npm through this machine's npm config and CA bundle, mounted as build secrets",
  flags: [
    {
      name: "--only",
      value: "NAMES",
      help: `only these components, comma-separated (${COMPONENTS.map((c) => c.name).join(",")})`,
    },
    {
      name: "--import-containerd",
      value: "SOCKET",
      help: "then import the images into the containerd listening on this socket (its k8s.io namespace)",
    },
    {
      name: "--cache-dir",
      value: "DIR",
      default: "$XDG_CACHE_HOME/thaw/images",
      help: "podman's storage and the build caches",
    },
    { name: "--sizes", help: "also print each image's gzipped size" },
  ],
  env: [{ name: "XDG_CACHE_HOME", default: "~/.cache", help: "the default --cache-dir's parent" }],
};
const { flags } = readCommandLine(IMAGES_COMMAND, process.argv.slice(2), import.meta.url);
const only = flags["--only"]
  ?.split(",")
  .map((s) => s.trim())
  .filter(Boolean);

const names = COMPONENTS.map((c) => c.name);
for (const name of only ?? []) {
  if (names.includes(name)) continue;
  const near = closest(name, names);
  exitWithUsageError(
    "images",
    `--only: ${JSON.stringify(name)} is not a component (${near ? `did you mean ${near}? ` : ""}known: ${names.join(", ")})`,
  );
}

try {
  const pm = setupPodman(flags["--cache-dir"] ?? defaultCacheDir());
  console.log(`images: cache and podman storage in ${pm.dir}`);
  const result = await buildImages(pm, ROOT, { only });
  if (flags["--sizes"] === "true") {
    for (const ref of [...result.bases.map((b) => b.ref), ...result.images.map((i) => i.ref)]) {
      console.log(`images: size ${ref}: ${((await gzippedBytes(pm, ref)) / 1e6).toFixed(1)} MB gzipped`);
    }
  }
  const address = flags["--import-containerd"];
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
