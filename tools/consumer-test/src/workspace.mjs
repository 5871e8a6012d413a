// The public packages of the workspace, read from the root's `workspaces` globs (one level: `dir/*`).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository root (this file lives in tools/consumer-test/src). */
export const root = new URL("../../../", import.meta.url).pathname;

/** Every workspace package that is not private: `{ name, version, dir (relative), manifest }`. */
export function publicPackages() {
  const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const found = [];
  for (const glob of rootManifest.workspaces) {
    const parent = glob.replace(/\/\*$/, "");
    for (const entry of readdirSync(join(root, parent)).sort()) {
      const file = join(root, parent, entry, "package.json");
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, "utf8"));
      if (manifest.private) continue;
      found.push({ name: manifest.name, version: manifest.version, dir: `${parent}/${entry}`, manifest });
    }
  }
  return found;
}

/** The file name `npm pack` gives a package's tarball (`@thaw/clock@0.1.0` -> `thaw-clock-0.1.0.tgz`). */
export function tarballName(name, version) {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}
