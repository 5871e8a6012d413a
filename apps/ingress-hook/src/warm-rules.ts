import { MAX_WARM_TTL_SECONDS } from "@thaw/protocol";
import type { Issue, Parsed } from "./config.js";
import type { ServiceRoute } from "./decision/resolvers.js";
import { serviceRefOf, type WarmRule } from "./decision/warm-hints.js";

/**
 * Reads wake-hint rules outside a thaw.config.yaml, e.g. the edge gateway's THAW_WARM variable: the shape of
 * the file's `warm:` list (`{path, hosts?, services, ttlSeconds}`), each service named as in `routes`
 * (`name`, or `namespace/name` outside `default`). `at` prefixes every issue's path.
 */
export function parseWarmRules(
  doc: unknown,
  routes: readonly ServiceRoute[],
  at: string,
): Parsed<WarmRule[]> {
  const issues: Issue[] = [];
  if (!Array.isArray(doc)) {
    return {
      ok: false,
      issues: [
        { path: at, message: "must be a list such as [{path: /login, services: [api], ttlSeconds: 300}]" },
      ],
    };
  }
  const known = new Set(routes.map((r) => `${r.namespace}/${r.name}`));
  const out: WarmRule[] = [];
  doc.forEach((rule, k) => {
    const p = `${at}[${k}]`;
    if (typeof rule !== "object" || rule === null || Array.isArray(rule)) {
      issues.push({ path: p, message: "must be a mapping with path, services and ttlSeconds" });
      return;
    }
    const { path, hosts = [], services, ttlSeconds } = rule as Record<string, unknown>;
    if (typeof path !== "string" || !path.startsWith("/")) {
      issues.push({ path: `${p}.path`, message: "must be a path prefix starting with /, e.g. /login" });
    }
    if (!Array.isArray(hosts) || !hosts.every((h) => typeof h === "string" && h !== "")) {
      issues.push({ path: `${p}.hosts`, message: "must be a list of host names such as app.example.com" });
    }
    if (!Array.isArray(services) || services.length === 0) {
      issues.push({ path: `${p}.services`, message: "must name at least one service to warm, e.g. [api]" });
    } else {
      services.forEach((s, j) => {
        const ref = typeof s === "string" ? serviceRefOf(s) : undefined;
        if (!ref || !known.has(`${ref.namespace}/${ref.name}`)) {
          issues.push({
            path: `${p}.services[${j}]`,
            message: `no service ${JSON.stringify(s)} in THAW_SERVICES; name one of ${[...known].map((n) => n.replace(/^default\//, "")).join(", ")}`,
          });
        }
      });
    }
    if (
      !(
        Number.isInteger(ttlSeconds) &&
        (ttlSeconds as number) >= 1 &&
        (ttlSeconds as number) <= MAX_WARM_TTL_SECONDS
      )
    ) {
      issues.push({
        path: `${p}.ttlSeconds`,
        message: `must be whole seconds from 1 to ${MAX_WARM_TTL_SECONDS}, got ${JSON.stringify(ttlSeconds)}`,
      });
    }
    if (issues.length > 0) return;
    out.push({
      path: path as string,
      hosts: (hosts as string[]).map((h) => h.toLowerCase()),
      services: (services as string[]).map(serviceRefOf),
      ttlSeconds: ttlSeconds as number,
    });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}
