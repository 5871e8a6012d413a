import { Header, parseDecoratorOperation, type RevisionId, revisionFromHeaders } from "@thaw/protocol";
import type { WaitingPage } from "../waiting-page/hold.js";
import type { HookRequest } from "./request-view.js";
import type { RevisionSlot } from "./revision-slot.js";

/**
 * Finds the revision a request is for. `trust: "route"` resolvers read headers that a client could also
 * send, so the hook consults them only when the route proved it set them (see route-trust.ts).
 */
export interface Resolver {
  readonly name: string;
  readonly trust: "route" | "any";
  resolve(req: HookRequest): RevisionId | undefined;
  /**
   * Offered by resolvers whose revisions are all known when built (the host table): the same lookup,
   * built once per hook, answering the hook's slot of each revision (`slotOf`) instead of its id.
   */
  bind?(slotOf: (ref: RevisionId) => RevisionSlot): (req: HookRequest) => RevisionSlot | undefined;
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
  /** The service's waiting page for people (absent = none); the hook reads it through `waitingPageFor`. */
  waitingPage?: WaitingPage;
}

interface PrefixRoute<T> {
  prefix: string;
  to: T;
}

/** Per host: its one revision when the host has a single whole-host route, else its routes, longest prefix first. */
type HostTable<T> = Map<string, T | PrefixRoute<T>[]>;

function compileHostTable<T>(services: readonly ServiceRoute[], to: (ref: RevisionId) => T): HostTable<T> {
  const lists = new Map<string, PrefixRoute<T>[]>();
  for (const svc of services) {
    const target = to({ namespace: svc.namespace, name: svc.name });
    const prefixes = svc.paths && svc.paths.length > 0 ? svc.paths : ["/"];
    for (const host of svc.hosts) {
      const key = host.toLowerCase();
      const list = lists.get(key) ?? [];
      for (const p of prefixes) list.push({ prefix: p === "/" ? "/" : p.replace(/\/+$/, ""), to: target });
      list.sort((a, b) => b.prefix.length - a.prefix.length);
      lists.set(key, list);
    }
  }
  // The common host has one whole-host route: the table then holds its target itself, one read fewer.
  const table: HostTable<T> = new Map();
  for (const [host, list] of lists) {
    const first = list[0];
    table.set(host, list.length === 1 && first?.prefix === "/" ? first.to : list);
  }
  return table;
}

function lookupHost<T>(table: HostTable<T>, req: HookRequest): T | undefined {
  const hit = table.get(req.host);
  if (hit === undefined || !Array.isArray(hit)) return hit;
  for (const r of hit) {
    if (r.prefix === "/") return r.to;
    if (req.path === r.prefix || req.path.startsWith(`${r.prefix}/`)) return r.to;
  }
  return undefined;
}

/** Routes by host, then by the longest matching path prefix (a prefix matches whole segments). */
export function hostTableResolver(services: readonly ServiceRoute[]): Resolver {
  const byHost = compileHostTable(services, (ref) => ref);
  return {
    name: "host-table",
    trust: "any",
    resolve: (req) => lookupHost(byHost, req),
    bind(slotOf) {
      const slots = compileHostTable(services, slotOf);
      return (req) => lookupHost(slots, req);
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
