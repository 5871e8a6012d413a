import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publicPackages, root, tarballName } from "../src/workspace.mjs";
import { run, shown } from "./run.js";

/** A public workspace package as src/workspace.mjs reads it. */
export interface PublicPackage {
  name: string;
  version: string;
  dir: string;
  manifest: Manifest;
}

/** The package.json fields these tests read. */
export interface Manifest {
  name: string;
  version: string;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export const packages: PublicPackage[] = publicPackages();
export const repoRoot: string = root;
export const examplesDir = new URL("../examples/", import.meta.url).pathname;
const fixtureDir = new URL("../fixture/", import.meta.url).pathname;

function manifestOf(name: string): Manifest {
  const p = packages.find((x) => x.name === name);
  if (!p) throw new Error(`${name} is not a public workspace package`);
  return p.manifest;
}

/** A fresh directory under the OS temp dir, outside the workspace so nothing resolves into it. */
export async function freshDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (dir.startsWith(repoRoot)) throw new Error(`${dir} is inside the workspace`);
  return dir;
}

/** Packs every public package into `out` (one npm call): name -> tarball path. */
export async function packAll(out: string): Promise<Map<string, string>> {
  await mkdir(out, { recursive: true });
  const args = [
    "pack",
    "--ignore-scripts",
    "--pack-destination",
    out,
    ...packages.flatMap((p) => ["-w", p.dir]),
  ];
  const r = await run("npm", args, { cwd: repoRoot });
  if (r.code !== 0) throw new Error(`npm pack failed\n${shown(r)}`);
  return new Map(packages.map((p) => [p.name, join(out, tarballName(p.name, p.version))]));
}

/**
 * What a user adds next to the tarballs: hono at the lowest version of the peer range (the workspace
 * itself tests the pinned newest), the activator's Node-only optional peers at the versions the workspace
 * tests, and the two type packages of the two type-checks.
 */
function thirdParty(): { dependencies: Record<string, string>; devDependencies: Record<string, string> } {
  const act = manifestOf("@thaw/activator");
  const honoRange = act.peerDependencies?.hono ?? "";
  const dependencies: Record<string, string> = { hono: honoRange.replace(/^\^/, "") };
  for (const [name, meta] of Object.entries(act.peerDependenciesMeta ?? {})) {
    const pinned = act.devDependencies?.[name];
    if (meta.optional && pinned && name !== "@cloudflare/workers-types") dependencies[name] = pinned;
  }
  const rootDev = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as Manifest)
    .devDependencies;
  const devDependencies: Record<string, string> = {};
  for (const t of ["@types/node", "@cloudflare/workers-types"]) devDependencies[t] = rootDev?.[t] ?? "";
  return { dependencies, devDependencies };
}

/** `npm install` in `dir` from the warm cache, as a user would (no workspace variables). */
export async function npmInstall(dir: string): Promise<void> {
  const r = await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], {
    cwd: dir,
    timeoutMs: 240_000,
  });
  if (r.code !== 0) throw new Error(`npm install failed in ${dir}\n${shown(r)}`);
}

/**
 * The user's project: every tarball as a `file:` dependency plus third-party packages, the examples under
 * src/, the fixture's tsconfigs and wrangler.jsonc, and thaw.config.yaml at the top.
 */
export async function createProject(dir: string, tarballs: Map<string, string>): Promise<void> {
  const { dependencies, devDependencies } = thirdParty();
  for (const [name, path] of tarballs) dependencies[name] = `file:${path}`;
  const manifest = { name: "my-thaw-app", private: true, type: "module", dependencies, devDependencies };
  await writeFile(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  await cp(fixtureDir, dir, { recursive: true });
  await mkdir(join(dir, "src"));
  for (const f of await readdir(examplesDir)) {
    await cp(join(examplesDir, f), f.endsWith(".ts") ? join(dir, "src", f) : join(dir, f));
  }
  await npmInstall(dir);
}
