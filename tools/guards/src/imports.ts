import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** A runtime import found where only portable code may live. */
export interface Violation {
  file: string;
  line: number;
  specifier: string;
}

const IMPORT =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["']((?:node|cloudflare):[^"']*)["']/g;

/** Finds `node:*` and `cloudflare:*` imports in one source text, with their line numbers. */
export function runtimeImports(text: string): { line: number; specifier: string }[] {
  const found: { line: number; specifier: string }[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const line = text.slice(0, m.index).split("\n").length;
    found.push({ line, specifier: m[1] as string });
  }
  return found;
}

/** Which runtime a file may import: `src/node/**` may use node:*, `src/workerd/**` cloudflare:*. */
export function allowed(pathInPackage: string, specifier: string): boolean {
  const parts = pathInPackage.split(sep);
  if (parts[0] !== "src") return true;
  if (/\.test\.ts$/.test(pathInPackage) && specifier.startsWith("node:")) return true;
  if (specifier.startsWith("node:")) return parts[1] === "node";
  return parts[1] === "workerd";
}

/** Walks packages/* /src and reports every runtime import outside the allowed folders. */
export async function scanPackages(packagesDir: string): Promise<Violation[]> {
  const out: Violation[] = [];
  for (const pkg of await readdir(packagesDir)) {
    const root = join(packagesDir, pkg);
    for (const file of await sourceFiles(join(root, "src"))) {
      const rel = relative(root, file);
      for (const imp of runtimeImports(await readFile(file, "utf8"))) {
        if (!allowed(rel, imp.specifier)) out.push({ file: join("packages", pkg, rel), ...imp });
      }
    }
  }
  return out;
}

async function sourceFiles(dir: string): Promise<string[]> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files.push(...(await sourceFiles(p)));
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) files.push(p);
  }
  return files;
}
