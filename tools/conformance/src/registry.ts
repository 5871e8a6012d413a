import type { Adapter } from "./types.js";

/** Which package a vector file exercises, and the adapter that drives it. */
export interface Entry {
  /** The workspace package the adapter imports; absent from the workspace = the file is skipped. */
  pkg: string;
  load: () => Promise<Adapter>;
}

/**
 * Vector file name -> adapter. A file missing here fails every vector: the runner never passes what it
 * does not understand.
 */
export const registry: Record<string, Entry> = {
  "readiness-probe.json": {
    pkg: "@thaw/readiness",
    load: async () => (await import("./adapters/readiness-probe.js")).adapter,
  },
};
