import type { Adapter } from "./types.js";

/** Which package a vector file exercises, and the adapter that drives it. */
export interface Entry {
  /** The workspace package the adapter imports; absent from the workspace = the file is skipped. */
  pkg: string;
  load: () => Promise<Adapter>;
}

/**
 * Vector file -> the package it exercises. The adapter for `<stem>.json` is `./adapters/<stem>.js`,
 * exporting `adapter`. A file missing here fails every vector: the runner never passes what it does not
 * understand. One line per file, so branches adding adapters merge without conflicts.
 */
const packages: Record<string, string> = {
  "probe-protocol.json": "@thaw/protocol",
  "breaker.json": "@thaw/activation",
  "request-stats.json": "@thaw/activation",
  "throttler-lb.json": "@thaw/activation",
  "autoscaler-config.json": "@thaw/autoscaler",
  "bucket-window.json": "@thaw/autoscaler",
  "kpa-decider.json": "@thaw/autoscaler",
  "readiness-probe.json": "@thaw/readiness",
};

/** The registry the CLI uses. */
export const registry: Record<string, Entry> = Object.fromEntries(
  Object.entries(packages).map(([file, pkg]) => [
    file,
    {
      pkg,
      load: async () => {
        const mod = (await import(`./adapters/${file.replace(/\.json$/, "")}.js`)) as { adapter: Adapter };
        return mod.adapter;
      },
    },
  ]),
);
