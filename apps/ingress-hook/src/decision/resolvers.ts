import { Header, parseDecoratorOperation, type RevisionId, revisionFromHeaders } from "@thaw/protocol";
import type { HookRequest } from "./request-view.js";

/**
 * Finds the revision a request is for. `trust: "route"` resolvers read headers that a client could also
 * send, so the hook consults them only when the route proved it set them (see route-trust.ts).
 */
export interface Resolver {
  readonly name: string;
  readonly trust: "route" | "any";
  resolve(req: HookRequest): RevisionId | undefined;
}

/** Knative-Serving-Namespace / Knative-Serving-Revision set by the route (proxy_set_header, Envoy route headers). */
export function routeHeadersResolver(): Resolver {
  return {
    name: "route-headers",
    trust: "route",
    resolve: (req) => revisionFromHeaders(req.headers),
  };
}

/**
 * Istio's `x-envoy-decorator-operation`, e.g. `hello-00001.default.svc.cluster.local:80/*`: the first DNS
 * label is the revision's service, the second its namespace (the seed's Lua pattern, without its crash on
 * a missing header).
 */
export function envoyDecoratorResolver(): Resolver {
  return {
    name: "envoy-decorator",
    trust: "route",
    resolve(req) {
      const op = req.headers.get(Header.envoyDecoratorOperation);
      const parsed = op ? parseDecoratorOperation(op) : undefined;
      return parsed ? { namespace: parsed.namespace, name: parsed.name } : undefined;
    },
  };
}

/** One row of the host/path table: the shape of a thaw.config.yaml service. */
export interface ServiceRoute {
  name: string;
  namespace: string;
  hosts: string[];
  /** Optional path prefixes; none means every path of the hosts. */
  paths?: string[];
  /** Picks the LB policy for X-Thaw-Upstream (thaw.config.yaml's containerConcurrency); default 0. */
  containerConcurrency?: number;
  /** Requests held for a pod slot at most (thaw.config.yaml's maxQueue); default the hook's `maxQueue`. */
  maxQueue?: number;
}

interface CompiledRoute {
  prefix: string;
  ref: RevisionId;
}

/** Routes by host, then by the longest matching path prefix (a prefix matches whole segments). */
export function hostTableResolver(services: readonly ServiceRoute[]): Resolver {
  const byHost = new Map<string, CompiledRoute[]>();
  for (const svc of services) {
    const ref = { namespace: svc.namespace, name: svc.name };
    const prefixes = svc.paths && svc.paths.length > 0 ? svc.paths : ["/"];
    for (const host of svc.hosts) {
      const key = host.toLowerCase();
      const list = byHost.get(key) ?? [];
      for (const p of prefixes) list.push({ prefix: p === "/" ? "/" : p.replace(/\/+$/, ""), ref });
      list.sort((a, b) => b.prefix.length - a.prefix.length);
      byHost.set(key, list);
    }
  }
  return {
    name: "host-table",
    trust: "any",
    resolve(req) {
      const routes = byHost.get(req.host);
      if (!routes) return undefined;
      for (const r of routes) {
        if (r.prefix === "/") return r.ref;
        if (req.path === r.prefix || req.path.startsWith(`${r.prefix}/`)) return r.ref;
      }
      return undefined;
    },
  };
}

/** Runs resolvers in order; route-trust ones only when `routeTrusted`. */
export function runResolvers(
  resolvers: readonly Resolver[],
  req: HookRequest,
  routeTrusted: boolean,
): { ref: RevisionId; by: string } | undefined {
  for (const r of resolvers) {
    if (r.trust === "route" && !routeTrusted) continue;
    const ref = r.resolve(req);
    if (ref) return { ref, by: r.name };
  }
  return undefined;
}
