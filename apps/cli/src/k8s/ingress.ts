import type { ServiceConfig } from "@thaw/config";
import { STRIPPED_HEADERS } from "@thaw/ingress-hook";
import { Header } from "@thaw/protocol";
import { ACTIVATOR_PORT, HOOK_PORT, serviceUrl } from "./components.js";
import { PART_OF, type RenderOptions } from "./options.js";
import { type K8sObject, namesOf } from "./service.js";

/**
 * What the hook answers an allowed request with; the ingress copies them onto the request it forwards. The
 * revision headers are present only when the request must go through the activator (held while cold, or
 * the revision in proxy mode; always for ingress-nginx), and their presence is what routes it there.
 */
const ALLOW_HEADERS = ["x-thaw-upstream", "x-thaw-revision", Header.namespace, Header.revision];
/**
 * Envoy's ext_authz HTTP check sends only Host, method, path, Content-Length and Authorization unless told
 * more: the hook must see every internal header a client sent to refuse it.
 */
const CHECKED_HEADERS = [...STRIPPED_HEADERS, "knative-serving-tag", "knative-serving-default-route"];
/** The hook's Envoy dialect (ext_authz HTTP service with a path prefix). */
const ENVOY_PREFIX = "/_thaw/auth/envoy";
/** The activator's Service, where held and proxy-mode requests go. */
export const ACTIVATOR = "thaw-activator";

/** Path prefixes of a service's route ("/" when it has none). */
export function pathsOf(service: ServiceConfig): string[] {
  return service.paths.length > 0 ? service.paths : ["/"];
}

/** The revision headers an activator-bound answer carries for this service: namespace, then name. */
export function revisionHeaders(service: ServiceConfig): [string, string][] {
  return [
    [Header.namespace, service.namespace],
    [Header.revision, service.name],
  ];
}

/**
 * A Gateway API reference to a Service with the CRD's defaults written out (`group: ""`, `kind: Service`):
 * the lists holding them are atomic, so a default the server fills in would make client-side then
 * server-side apply conflict. A route's backendRefs also get their default `weight: 1`.
 */
function serviceRef(name: string, port: number, namespace?: string): K8sObject {
  return { group: "", kind: "Service", name, ...(namespace ? { namespace } : {}), port };
}

function meta(service: ServiceConfig, name: string): K8sObject {
  return { name, namespace: namesOf(service).namespace, labels: { ...PART_OF } };
}

/**
 * ingress-nginx: `auth-url` to the hook's ingress-nginx dialect (it reads the X-Original-URL ingress-nginx
 * sets), the hook's answer copied onto the request (`auth-response-headers`), no snippets (disabled by
 * default). ingress-nginx chooses a location's backend before the auth call, so an answer cannot switch it
 * between the pods and the activator: the backend is the activator for every request (Knative's
 * activator-always-in-path), and the hook names the revision on every answer. The Ingress lives in the
 * platform namespace because its backend Service must be in its own namespace.
 */
export function nginxIngress(service: ServiceConfig, options: RenderOptions): K8sObject[] {
  const names = namesOf(service);
  if (service.hosts.length === 0) return [];
  return [
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: {
        name: `thaw-${names.namespace}-${names.service}`,
        namespace: options.systemNamespace,
        labels: { ...PART_OF },
        annotations: {
          "nginx.ingress.kubernetes.io/auth-response-headers": ALLOW_HEADERS.join(","),
          "nginx.ingress.kubernetes.io/auth-url": `${serviceUrl(options, "http", "thaw-ingress-hook", HOOK_PORT)}/_thaw/auth/ingress-nginx`,
          // Cold requests wait in the auth call and then for the app: keep both above the revision timeout.
          "nginx.ingress.kubernetes.io/proxy-read-timeout": String(service.timeoutSeconds),
        },
      },
      spec: {
        ingressClassName: options.ingressClass,
        rules: service.hosts.map((host) => ({
          host: host.replace(/:\d+$/, ""),
          http: {
            paths: pathsOf(service).map((path) => ({
              path,
              pathType: "Prefix",
              backend: { service: { name: ACTIVATOR, port: { name: "http" } } },
            })),
          },
        })),
      },
    },
  ];
}

/**
 * Gateway API: an HTTPRoute with two rules, Envoy Gateway's `SecurityPolicy` that asks the hook first
 * (ext_authz HTTP) and `recomputeRoute`, so the route is chosen again after the hook's headers are added.
 * The rule that matches the revision headers (an activator-bound answer) goes to the activator; the other
 * one, warm requests, to the service's Service. Two ReferenceGrants let the policy name the hook's Service
 * and the route the activator's.
 */
export function gatewayObjects(service: ServiceConfig, options: RenderOptions): K8sObject[] {
  const names = namesOf(service);
  if (service.hosts.length === 0) return [];
  const timeouts = { request: `${service.timeoutSeconds}s` };
  const headers = revisionHeaders(service).map(([name, value]) => ({ type: "Exact", name, value }));
  const paths = pathsOf(service).map((value) => ({ path: { type: "PathPrefix", value } }));
  return [
    {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: meta(service, names.service),
      spec: {
        parentRefs: [
          {
            group: "gateway.networking.k8s.io",
            kind: "Gateway",
            name: options.gateway.name,
            namespace: options.gateway.namespace,
          },
        ],
        hostnames: service.hosts.map((h) => h.replace(/:\d+$/, "")),
        rules: [
          {
            matches: paths.map((m) => ({ ...m, headers })),
            backendRefs: [{ ...serviceRef(ACTIVATOR, ACTIVATOR_PORT, options.systemNamespace), weight: 1 }],
            timeouts,
          },
          { matches: paths, backendRefs: [{ ...serviceRef(names.service, 80), weight: 1 }], timeouts },
        ],
      },
    },
    {
      apiVersion: "gateway.envoyproxy.io/v1alpha1",
      kind: "SecurityPolicy",
      metadata: meta(service, `${names.service}-thaw`),
      spec: {
        targetRefs: [{ group: "gateway.networking.k8s.io", kind: "HTTPRoute", name: names.service }],
        extAuth: {
          http: {
            backendRefs: [serviceRef("thaw-ingress-hook", HOOK_PORT, options.systemNamespace)],
            path: ENVOY_PREFIX,
            headersToBackend: ALLOW_HEADERS,
          },
          headersToExtAuth: CHECKED_HEADERS,
          failOpen: false,
          recomputeRoute: true,
        },
      },
    },
  ];
}

function referenceGrant(
  options: RenderOptions,
  namespaces: readonly string[],
  from: { group: string; kind: string },
  service: string,
): K8sObject {
  return {
    apiVersion: "gateway.networking.k8s.io/v1beta1",
    kind: "ReferenceGrant",
    metadata: { name: service, namespace: options.systemNamespace, labels: { ...PART_OF } },
    spec: {
      from: [...new Set(namespaces)].sort().map((namespace) => ({ ...from, namespace })),
      to: [{ group: "", kind: "Service", name: service }],
    },
  };
}

/**
 * The ReferenceGrants in the platform namespace: SecurityPolicies in the service namespaces may use the
 * hook's Service, HTTPRoutes there the activator's (and nothing else).
 */
export function platformReferenceGrants(options: RenderOptions, namespaces: readonly string[]): K8sObject[] {
  return [
    referenceGrant(
      options,
      namespaces,
      { group: "gateway.envoyproxy.io", kind: "SecurityPolicy" },
      "thaw-ingress-hook",
    ),
    referenceGrant(options, namespaces, { group: "gateway.networking.k8s.io", kind: "HTTPRoute" }, ACTIVATOR),
  ];
}
