import type { ServiceRoute } from "./decision/resolvers.js";
import { parseWaitingPageSetting } from "./waiting-page/settings.js";

/** A problem in the input, with the field path and what to do about it. */
export interface Issue {
  path: string;
  message: string;
}

/** Parse result: a value or the issues that stop it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/**
 * Reads a bare routing table, e.g. a Worker's THAW_SERVICES variable: `services` entries with `name`,
 * `namespace` (default `default`), `hosts` and optional `paths` only. A whole thaw.config.yaml goes
 * through @thaw/config instead (node/config-file.ts); other keys are ignored here.
 */
export function parseServiceRoutes(doc: unknown): Parsed<ServiceRoute[]> {
  const issues: Issue[] = [];
  const services = isObject(doc) ? doc["services"] : undefined;
  if (!Array.isArray(services)) {
    return { ok: false, issues: [{ path: "services", message: "must be a list of services" }] };
  }
  const out: ServiceRoute[] = [];
  services.forEach((svc, i) => {
    const at = `services[${i}]`;
    if (!isObject(svc)) {
      issues.push({ path: at, message: "must be a mapping with name and hosts" });
      return;
    }
    const name = svc["name"];
    const namespace = svc["namespace"] ?? "default";
    if (typeof name !== "string" || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
      issues.push({ path: `${at}.name`, message: "must be a DNS label (lower-case letters, digits, '-')" });
    }
    if (typeof namespace !== "string" || namespace === "") {
      issues.push({ path: `${at}.namespace`, message: "must be a non-empty string" });
    }
    const hosts = svc["hosts"];
    if (
      !Array.isArray(hosts) ||
      hosts.length === 0 ||
      !hosts.every((h) => typeof h === "string" && h !== "")
    ) {
      issues.push({ path: `${at}.hosts`, message: "must be a non-empty list of host names" });
    }
    const paths = svc["paths"];
    if (paths !== undefined) {
      if (!Array.isArray(paths))
        issues.push({ path: `${at}.paths`, message: "must be a list of path prefixes" });
      else
        paths.forEach((p, j) => {
          if (typeof p !== "string" || !p.startsWith("/")) {
            issues.push({ path: `${at}.paths[${j}]`, message: "must be a path prefix starting with '/'" });
          }
        });
    }
    const cc = svc["containerConcurrency"];
    if (cc !== undefined && !(Number.isInteger(cc) && (cc as number) >= 0 && (cc as number) <= 1000)) {
      issues.push({
        path: `${at}.containerConcurrency`,
        message: `must be a whole number 0..1000 (Knative's range; 0 = no per-pod limit), got ${JSON.stringify(cc)}`,
      });
    }
    const maxQueue = svc["maxQueue"];
    if (
      maxQueue !== undefined &&
      !(Number.isInteger(maxQueue) && (maxQueue as number) >= 1 && (maxQueue as number) <= 1_000_000)
    ) {
      issues.push({
        path: `${at}.maxQueue`,
        message: `must be a whole number 1..1000000 (requests held while the pods are full), got ${JSON.stringify(maxQueue)}`,
      });
    }
    const waitingPage = parseWaitingPageSetting(svc["waitingPage"], `${at}.waitingPage`, issues);
    if (issues.length === 0) {
      const route: ServiceRoute = {
        name: name as string,
        namespace: namespace as string,
        hosts: (hosts as string[]).map((h) => h.toLowerCase()),
      };
      if (Array.isArray(paths)) route.paths = paths as string[];
      if (cc !== undefined) route.containerConcurrency = cc as number;
      if (maxQueue !== undefined) route.maxQueue = maxQueue as number;
      if (waitingPage) route.waitingPage = waitingPage;
      out.push(route);
    }
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
