import type { ServiceConfig } from "@thaw/config";
import { ACTIVATOR_PORT } from "./components.js";
import { ACTIVATOR, pathsOf, revisionHeaders } from "./ingress.js";
import { PART_OF, type RenderOptions } from "./options.js";
import { type K8sObject, namesOf } from "./service.js";

/** The Istio Gateway a service's VirtualService binds to: one per service, in Istio's namespace. */
function gatewayName(service: ServiceConfig): string {
  const names = namesOf(service);
  return `thaw-${names.namespace}-${names.service}`;
}

/**
 * Istio: a CUSTOM AuthorizationPolicy on the ingress gateway for the service's hosts (the hook as the
 * `thaw-ingress-hook` extension provider, whose mesh config is in docs/kubernetes.md), a Gateway for the
 * hosts on port 80, and a VirtualService whose first route takes requests carrying the revision headers
 * (the hook's activator-bound answer, routed again thanks to the provider's `clearRouteCache: true`) to the
 * activator, and whose second takes the rest (warm) to the service's Service.
 */
export function istioObjects(service: ServiceConfig, options: RenderOptions): K8sObject[] {
  if (service.hosts.length === 0) return [];
  const names = namesOf(service);
  const hosts = service.hosts.map((h) => h.replace(/:\d+$/, ""));
  const timeout = `${service.timeoutSeconds}s`;
  const headers = Object.fromEntries(revisionHeaders(service).map(([n, exact]) => [n, { exact }]));
  const uris = pathsOf(service).map((prefix) => ({ uri: { prefix } }));
  const to = (host: string, number: number) => [{ destination: { host, port: { number } } }];
  const gateway = gatewayName(service);
  return [
    {
      apiVersion: "security.istio.io/v1",
      kind: "AuthorizationPolicy",
      metadata: { name: gateway, namespace: options.istioNamespace, labels: { ...PART_OF } },
      spec: {
        selector: { matchLabels: { istio: "ingressgateway" } },
        action: "CUSTOM",
        provider: { name: "thaw-ingress-hook" },
        rules: [{ to: [{ operation: { hosts: service.hosts, ...istioPaths(service) } }] }],
      },
    },
    {
      apiVersion: "networking.istio.io/v1",
      kind: "Gateway",
      metadata: { name: gateway, namespace: options.istioNamespace, labels: { ...PART_OF } },
      spec: {
        selector: { istio: "ingressgateway" },
        servers: [{ port: { number: 80, name: "http", protocol: "HTTP" }, hosts }],
      },
    },
    {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: names.service, namespace: names.namespace, labels: { ...PART_OF } },
      spec: {
        hosts,
        gateways: [`${options.istioNamespace}/${gateway}`],
        http: [
          {
            name: "activator",
            match: uris.map((m) => ({ ...m, headers })),
            route: to(`${ACTIVATOR}.${options.systemNamespace}.svc.cluster.local`, ACTIVATOR_PORT),
            timeout,
          },
          {
            name: "pods",
            match: uris,
            route: to(`${names.service}.${names.namespace}.svc.cluster.local`, 80),
            timeout,
          },
        ],
      },
    },
  ];
}

/** Istio matches a path exactly or by a trailing `*`: each prefix as itself and as `<prefix>/*`. */
function istioPaths(service: ServiceConfig): { paths?: string[] } {
  if (service.paths.length === 0) return {};
  return { paths: service.paths.flatMap((p) => [p, `${p.replace(/\/$/, "")}/*`]) };
}
