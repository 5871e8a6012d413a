import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** A file the page loads from us (no CDN): uPlot's script, its stylesheet and its MIT license notice. */
export interface Asset {
  body: string;
  type: string;
}

const FILES: Record<string, { file: string; type: string }> = {
  "uplot.js": { file: "uplot/dist/uPlot.iife.min.js", type: "text/javascript; charset=utf-8" },
  "uplot.css": { file: "uplot/dist/uPlot.min.css", type: "text/css; charset=utf-8" },
  "uplot-license.txt": { file: "uplot/LICENSE", type: "text/plain; charset=utf-8" },
};

const cache = new Map<string, Asset>();

/** The asset named `name` under `/_thaw/assets/`, read once from the installed uplot package; else undefined. */
export function dashboardAsset(name: string): Asset | undefined {
  const hit = cache.get(name);
  if (hit) return hit;
  const spec = FILES[name];
  if (!spec) return undefined;
  const path = createRequire(import.meta.url).resolve(spec.file);
  const asset = { body: readFileSync(path, "utf8"), type: spec.type };
  cache.set(name, asset);
  return asset;
}
