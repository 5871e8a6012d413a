import { dirname, resolve } from "node:path";
import { formatIssues, type ThawConfig } from "@thaw/config";
import { loadConfigFile } from "@thaw/config/node";
import type { WaitingPage } from "@thaw/ingress-hook";
// The loader alone: the package's node entry would load the whole forward-auth service (bench/startup.mjs).
import { loadWaitingPages } from "@thaw/ingress-hook/waiting-pages";
import { type ResolvedService, resolveServices } from "./config-check.js";

/** A config file read and checked in full, or every issue found in it. */
export type LoadedConfig =
  | { ok: true; config: ThawConfig; services: ResolvedService[]; pages: Map<string, WaitingPage> }
  | { ok: false; issues: { path: string; message: string }[] };

/**
 * Reads a thaw.config.yaml and runs every check: the schema, then the autoscaling and probe rules; with
 * `containers.discover`, on the labelled containers of the engine too (`env` gives DOCKER_HOST).
 */
export async function loadAndCheck(
  file: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<LoadedConfig> {
  const loaded = await loadConfigFile(file);
  if (!loaded.ok) return { ok: false, issues: loaded.issues };
  let config = loaded.value;
  if (config.containers?.discover) {
    // Loaded only when asked for: the engine client is not on `thaw validate`'s usual path.
    const { withDiscoveredContainers } = await import("./containers/discover.js");
    const discovered = await withDiscoveredContainers(config, env);
    if (!discovered.ok) return { ok: false, issues: discovered.issues };
    config = discovered.config;
  }
  const resolved = resolveServices(config);
  if (!resolved.ok) return { ok: false, issues: resolved.issues };
  // Waiting-page templates are files next to the config: read and parsed here, so validate refuses bad ones.
  const pages = await loadWaitingPages(config, dirname(resolve(file)));
  if (!pages.ok) return { ok: false, issues: pages.issues };
  return { ok: true, config, services: resolved.value, pages: pages.pages };
}

/** `thaw validate <file>`: `ok` and exit 0, or one line per issue and exit 1. */
export async function validateCommand(file: string): Promise<{ code: number; output: string }> {
  const r = await loadAndCheck(file);
  if (r.ok) return { code: 0, output: `${file}: ok (${r.config.services.length} service(s))` };
  return { code: 1, output: formatIssues(r.issues, file) };
}
