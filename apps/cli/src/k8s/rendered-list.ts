import { lstat, readdir, readFile, rm, rmdir } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize, sep } from "node:path";

/**
 * The list of files the last `thaw k8s render --out` wrote, kept in the output folder. The next render
 * removes the listed files it no longer writes (a removed service's file), and only those: files a user
 * added next to the rendered ones are never in the list, so they stay.
 */
export const RENDERED_LIST = ".thaw-rendered";

const LIST_HEADER =
  "# Files written by `thaw k8s render`; the next render removes those it no longer writes.\n";

/** The list's text for a set of rendered files (the list itself included, so it is never pruned). */
export function renderedList(files: ReadonlyMap<string, string>): string {
  return LIST_HEADER + [...new Set([...files.keys(), RENDERED_LIST])].sort().join("\n") + "\n";
}

/** A listed path, if it is a plain relative path inside the output folder (a hand-edited list cannot reach out). */
function safeRelative(line: string): string | undefined {
  const p = line.trim();
  if (p === "" || p.startsWith("#") || isAbsolute(p)) return undefined;
  const n = normalize(p);
  return n.startsWith("..") || n.split(sep).includes("..") ? undefined : n;
}

/**
 * Removes the files the previous render listed in `out` that `next` no longer has, then the folders that
 * became empty; returns the removed paths. Without a list (a folder rendered before lists existed, or
 * a new one) nothing is removed.
 */
export async function pruneRendered(out: string, next: ReadonlyMap<string, string>): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(join(out, RENDERED_LIST), "utf8");
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const rel of text.split("\n").map(safeRelative)) {
    if (rel === undefined || next.has(rel)) continue;
    const target = join(out, rel);
    const st = await lstat(target).catch(() => undefined);
    if (!st?.isFile()) continue;
    await rm(target);
    removed.push(rel);
    await removeEmptyParents(out, dirname(target));
  }
  return removed;
}

async function removeEmptyParents(out: string, dir: string): Promise<void> {
  const root = normalize(out);
  for (let d = normalize(dir); d !== root && d.startsWith(root + sep); d = dirname(d)) {
    if ((await readdir(d)).length > 0) return;
    await rmdir(d);
  }
}
