/**
 * One component's run-time tree, cut out of the built monorepo: its workspace package, the workspace packages
 * and npm packages it reaches through `dependencies` and installed peers, and nothing the lockfile marks dev.
 * Paths keep their place relative to the repository root, so Node resolves each import exactly as in the
 * monorepo, and the queue-proxy's tree carries no @kubernetes/client-node.
 */
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  symlinkSync,
} from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";

interface Manifest {
  name?: string;
  files?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** What a layout holds, for reports and tests. */
export interface Layout {
  /** Package directories copied, relative to the repository root. */
  packages: string[];
  /** Workspace links recreated (node_modules/@thaw/x -> ../../packages/x). */
  links: string[];
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, "utf8")) as T;
}

/**
 * Paths the lockfile marks dev (never in an image) or devOptional (installed for development and named only as an
 * optional peer, e.g. typescript or @cloudflare/workers-types: type-only, so also left out).
 */
function devPaths(root: string): Set<string> {
  const lock = readJson<{ packages?: Record<string, { dev?: boolean; devOptional?: boolean }> }>(
    join(root, "package-lock.json"),
  );
  return new Set(
    Object.entries(lock.packages ?? {}).flatMap(([p, v]) => (v.dev || v.devOptional ? [p] : [])),
  );
}

/** Node's lookup for `name` from a package at `from` (relative to root): the nearest node_modules/name. */
function resolveFrom(root: string, from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    if (basename(dir) !== "node_modules") {
      const candidate =
        dir === "" || dir === "." ? join("node_modules", name) : join(dir, "node_modules", name);
      if (existsSync(join(root, candidate))) return candidate;
    }
    if (dir === "" || dir === ".") return undefined;
    dir = dirname(dir);
  }
}

/** Walks `workspace`'s run-time dependencies under `root` and returns what to copy. */
export function planLayout(root: string, workspace: string): Layout {
  const dev = devPaths(root);
  const seen = new Set<string>();
  const links = new Set<string>();
  const queue = [workspace];
  while (queue.length > 0) {
    const pkg = queue.shift() as string;
    if (seen.has(pkg)) continue;
    seen.add(pkg);
    const m = readJson<Manifest>(join(root, pkg, "package.json"));
    const required = Object.keys({ ...m.dependencies });
    const optional = Object.keys({ ...m.optionalDependencies, ...m.peerDependencies }).filter(
      (n) => !required.includes(n),
    );
    for (const [names, must] of [
      [required, true],
      [optional, false],
    ] as const) {
      for (const name of names) {
        const at = resolveFrom(root, pkg, name);
        if (!at || dev.has(at)) {
          if (must)
            throw new Error(
              `${pkg} depends on ${name}, which is not installed under ${root}: run npm ci first`,
            );
          continue;
        }
        const real = relative(root, realpathSync(join(root, at)));
        if (real !== at) links.add(at);
        queue.push(real);
      }
    }
  }
  return { packages: [...seen].sort(), links: [...links].sort() };
}

/**
 * Copies the planned tree into `out` (a workspace package: package.json and its `files`; an npm package: all but
 * its own node_modules). `linkModules` links npm packages to root's copy instead (a quick layout for a test run
 * with `node --preserve-symlinks`).
 */
export function writeLayout(
  root: string,
  layout: Layout,
  out: string,
  opts: { linkModules?: boolean } = {},
): void {
  for (const pkg of layout.packages) {
    const src = join(root, pkg);
    const dest = join(out, pkg);
    const inModules = pkg.split(sep).includes("node_modules");
    if (inModules && opts.linkModules) {
      mkdirSync(dirname(dest), { recursive: true });
      if (!existsSync(dest)) symlinkSync(src, dest);
      continue;
    }
    mkdirSync(dest, { recursive: true });
    if (inModules) {
      const nested = join(src, "node_modules");
      cpSync(src, dest, { recursive: true, verbatimSymlinks: true, filter: (p) => p !== nested });
      continue;
    }
    const m = readJson<Manifest>(join(src, "package.json"));
    cpSync(join(src, "package.json"), join(dest, "package.json"));
    for (const f of m.files ?? []) {
      if (existsSync(join(src, f)))
        cpSync(join(src, f), join(dest, f), { recursive: true, verbatimSymlinks: true });
    }
  }
  for (const link of layout.links) {
    const target = readlinkSync(join(root, link));
    mkdirSync(dirname(join(out, link)), { recursive: true });
    if (!existsSync(join(out, link)) || !lstatSync(join(out, link)).isSymbolicLink())
      symlinkSync(target, join(out, link));
  }
}
