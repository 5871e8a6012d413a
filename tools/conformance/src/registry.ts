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
  "probe-protocol.json": {
    pkg: "@thaw/protocol",
    load: async () => (await import("./adapters/probe-protocol.js")).adapter,
  },
  "breaker.json": {
    pkg: "@thaw/activation",
    load: async () => (await import("./adapters/breaker.js")).adapter,
  },
  "request-stats.json": {
    pkg: "@thaw/activation",
    load: async () => (await import("./adapters/request-stats.js")).adapter,
  },
  "throttler-lb.json": {
    pkg: "@thaw/activation",
    load: async () => (await import("./adapters/throttler-lb.js")).adapter,
  },
};
