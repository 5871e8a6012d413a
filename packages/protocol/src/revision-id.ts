import { type HeaderSource, headersOf } from "./classify.js";
import { Header } from "./headers.js";

/** A Knative revision: namespace and name. */
export interface RevisionId {
  namespace: string;
  name: string;
}

/** Kubernetes' default cluster domain. */
export const DEFAULT_CLUSTER_DOMAIN = "cluster.local";

/** `<namespace>/<name>`, the key Knative's listers and logs use. */
export function revisionKey(id: RevisionId): string {
  return `${id.namespace}/${id.name}`;
}

/** The inverse of {@link revisionKey}; undefined unless it is exactly two non-empty parts. */
export function parseRevisionKey(key: string): RevisionId | undefined {
  const parts = key.split("/");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { namespace: parts[0], name: parts[1] };
}

/** From `Knative-Serving-Namespace` + `Knative-Serving-Revision`; undefined unless both are non-empty. */
export function revisionFromHeaders(source: HeaderSource): RevisionId | undefined {
  const headers = headersOf(source);
  const namespace = headers.get(Header.namespace) ?? "";
  const name = headers.get(Header.revision) ?? "";
  return namespace !== "" && name !== "" ? { namespace, name } : undefined;
}

/** `host` without a trailing `:port` (bracketed IPv6 literals keep their brackets). */
export function stripPort(host: string): string {
  const m = /^(\[[^\]]*\]|[^:]*)(?::\d*)?$/.exec(host);
  return m?.[1] ?? host;
}

/**
 * From a cluster-local service host `<name>.<namespace>.svc.<clusterDomain>[:port]` (the activator's
 * fallback, knative-spec.md d.1); undefined for any other shape.
 */
export function revisionFromHost(
  host: string,
  clusterDomain = DEFAULT_CLUSTER_DOMAIN,
): RevisionId | undefined {
  const bare = stripPort(host).toLowerCase();
  const suffix = `.svc.${clusterDomain.toLowerCase()}`;
  if (!bare.endsWith(suffix)) return undefined;
  const parts = bare.slice(0, -suffix.length).split(".");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return { name: parts[0], namespace: parts[1] };
}

/** What Istio's route decorator names: the revision and the upstream the route points at. */
export interface DecoratorOperation extends RevisionId {
  /** Upstream service host, e.g. `hello-00001.default.svc.cluster.local`. */
  host: string;
  port: number;
}

/**
 * Parses `x-envoy-decorator-operation` as the seed's Lua filter does: the value looks like
 * `<revision>.<namespace>.svc.<domain>:<port>/<path>`; revision and namespace are the first two labels of
 * the host, host and port what surrounds the first colon. Undefined when it does not have that shape.
 */
export function parseDecoratorOperation(operation: string): DecoratorOperation | undefined {
  const m = /^([^:/]+):(\d+)\//.exec(operation.trim());
  if (!m) return undefined;
  const host = m[1] as string;
  const port = Number(m[2]);
  const [name, namespace] = host.split(".");
  if (!name || !namespace || port <= 0 || port > 65_535) return undefined;
  return { name, namespace, host, port };
}

/** Where the target revision was read from. */
export type RevisionSource = "headers" | "host" | "decorator";

/** Options for {@link resolveRevision}. */
export interface ResolveRevisionOptions {
  /** Cluster domain for host parsing; default `cluster.local`. */
  clusterDomain?: string;
  /** Also look at `x-envoy-decorator-operation` (an Envoy/Istio ingress set it); default false. */
  decorator?: boolean;
}

/**
 * The revision a request targets, first from the revision headers, then (the ingress-hook case) from
 * `x-envoy-decorator-operation` when enabled, then from the Host (`host`, else the URL's authority).
 */
export function resolveRevision(
  req: Request,
  options: ResolveRevisionOptions = {},
  host: string = req.headers.get("host") ?? new URL(req.url).host,
): (RevisionId & { source: RevisionSource }) | undefined {
  const fromHeaders = revisionFromHeaders(req);
  if (fromHeaders) return { ...fromHeaders, source: "headers" };
  if (options.decorator) {
    const op = parseDecoratorOperation(req.headers.get(Header.envoyDecoratorOperation) ?? "");
    if (op) return { namespace: op.namespace, name: op.name, source: "decorator" };
  }
  const fromHost = revisionFromHost(host, options.clusterDomain);
  return fromHost ? { ...fromHost, source: "host" } : undefined;
}
