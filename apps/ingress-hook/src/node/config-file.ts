import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { parseServiceRoutes } from "../config.js";
import type { ServiceRoute } from "../decision/resolvers.js";

/** Reads the services table from a thaw.config.yaml; throws with every issue and its field path. */
export async function loadServiceRoutes(file: string): Promise<ServiceRoute[]> {
  const doc: unknown = parse(await readFile(file, "utf8"));
  const r = parseServiceRoutes(doc);
  if (!r.ok) {
    throw new Error(`${file}: ${r.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  }
  return r.value;
}
