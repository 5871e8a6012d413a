import type { Kind } from "./shape.js";
import type { Adapter } from "./types.js";

/** Which package a vector file exercises, and the adapter that drives it. */
export interface Entry {
  /** The workspace package the adapter imports; absent from the workspace = the file is skipped. */
  pkg: string;
  load: () => Promise<Adapter>;
}

/** What an adapter module exports: the adapter and the kinds (vector shapes) it reads. */
interface AdapterModule {
  adapter: Adapter;
  kinds: readonly Kind[];
}

/**
 * Vector file -> the package it exercises and its adapter module (`./adapters/<stem>.js`). A file missing
 * here fails every vector: the runner never passes what it does not understand. One line per file, so
 * branches adding adapters merge without conflicts; static imports so both Node and vitest resolve them.
 */
const adapters: Record<string, [pkg: string, load: () => Promise<AdapterModule>]> = {
  "probe-protocol.json": ["@thaw/protocol", () => import("./adapters/probe-protocol.js")],
  "breaker.json": ["@thaw/activation", () => import("./adapters/breaker.js")],
  "request-stats.json": ["@thaw/activation", () => import("./adapters/request-stats.js")],
  "throttler-lb.json": ["@thaw/activation", () => import("./adapters/throttler-lb.js")],
  "autoscaler-config.json": ["@thaw/autoscaler", () => import("./adapters/autoscaler-config.js")],
  "bucket-window.json": ["@thaw/autoscaler", () => import("./adapters/bucket-window.js")],
  "kpa-decider.json": ["@thaw/autoscaler", () => import("./adapters/kpa-decider.js")],
  "readiness-probe.json": ["@thaw/readiness", () => import("./adapters/readiness-probe.js")],
};

/** The registry the CLI uses. */
export const registry: Record<string, Entry> = Object.fromEntries(
  Object.entries(adapters).map(([file, [pkg, load]]) => [
    file,
    { pkg, load: async () => (await load()).adapter },
  ]),
);

/** The kinds (vector shapes) the adapter of `file` reads, for tests and docs. */
export async function kindsOf(file: string): Promise<readonly Kind[]> {
  const entry = adapters[file];
  if (!entry) throw new Error(`no adapter is registered for ${file}`);
  return (await entry[1]()).kinds;
}

/** The vector files the registry knows. */
export const VECTOR_FILES: readonly string[] = Object.keys(adapters);
