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
  "autoscaler-config.json": {
    pkg: "@thaw/autoscaler",
    load: async () => (await import("./adapters/autoscaler-config.js")).adapter,
  },
  "bucket-window.json": {
    pkg: "@thaw/autoscaler",
    load: async () => (await import("./adapters/bucket-window.js")).adapter,
  },
  "kpa-decider.json": {
    pkg: "@thaw/autoscaler",
    load: async () => (await import("./adapters/kpa-decider.js")).adapter,
  },
};
