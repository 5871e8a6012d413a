import { dirname, resolve } from "node:path";
import { formatIssues, type ThawConfig } from "@thaw/config";
import { loadConfigFile } from "@thaw/config/node";
import type { ServiceRoute } from "../decision/resolvers.js";
import { serviceRefOf, type WarmRule } from "../decision/warm-hints.js";
import type { WaitingPage } from "../waiting-page/hold.js";
import { loadWaitingPages } from "./waiting-pages.js";

/** The hook's routing table out of a validated thaw.config.yaml. */
export function serviceRoutesOf(config: ThawConfig): ServiceRoute[] {
  return config.services.map((s) => ({
    name: s.name,
    namespace: s.namespace,
    hosts: s.hosts,
    paths: s.paths,
  }));
}

/** The hook's wake-hint rules out of a validated thaw.config.yaml's `warm:` (service names may be `ns/name`). */
export function warmRulesOf(config: ThawConfig): WarmRule[] {
  return config.warm.map((r) => ({
    path: r.path,
    hosts: r.hosts.map((h) => h.toLowerCase()),
    services: r.services.map(serviceRefOf),
    ttlSeconds: r.ttlSeconds,
  }));
}

/** Reads thaw.config.yaml with @thaw/config; throws with every issue and its field path. */
export async function loadHookConfig(file: string): Promise<{
  config: ThawConfig;
  services: ServiceRoute[];
  warm: WarmRule[];
  pages: Map<string, WaitingPage>;
}> {
  const r = await loadConfigFile(file);
  if (!r.ok) throw new Error(formatIssues(r.issues, file));
  const pages = await loadWaitingPages(r.value, dirname(resolve(file)));
  if (!pages.ok) throw new Error(formatIssues(pages.issues, file));
  return {
    config: r.value,
    services: serviceRoutesOf(r.value),
    warm: warmRulesOf(r.value),
    pages: pages.pages,
  };
}
