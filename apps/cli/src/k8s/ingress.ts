import type { ServiceConfig } from "@thaw/config";
import { STRIPPED_HEADERS } from "@thaw/ingress-hook";
import { HOOK_PORT, serviceUrl } from "./components.js";
import { PART_OF, type RenderOptions } from "./options.js";
import { type K8sObject, namesOf } from "./service.js";

/** What the hook answers an allowed request with; the ingress copies them to the upstream request. */
const ALLOW_HEADERS = ["x-thaw-upstream", "x-thaw-revision"];
/**
 * Envoy's ext_authz HTTP check sends only Host, method, path, Content-Length and Authorization unless told
 * more: the hook must see every internal header a client sent to refuse it.
 */
const CHECKED_HEADERS = [...STRIPPED_HEADERS, "knative-serving-tag", "knative-serving-default-route"];
/** The hook's Envoy dialect (ext_authz HTTP service with a path prefix). */
const ENVOY_PREFIX = "/_thaw/auth/envoy";

function pathsOf(service: ServiceConfig): string[] {
  return service.paths.length > 0 ? service.paths : ["/"];
}

function meta(service: ServiceConfig, name: string): K8sObject {
  return { name, namespace: namesOf(service).namespace, labels: { ...PART_OF } };
}

/**
 * ingress-nginx: `auth-url` to the hook's ingress-nginx dialect (it reads the X-Original-URL ingress-nginx
 * sets), the hook's allow headers copied to the request, and no `auth-snippet` (ingress-nginx disables
 * snippets by default). The backend is the service's Service, port `http` (the queue-proxies).
 */
export function nginxIngress(service: ServiceConfig, options: RenderOptions): K8sObject[] {
  const names = namesOf(service);
  if (service.hosts.length === 0) return [];
  return [
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: {
        ...meta(service, names.service),
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
              backend: { service: { name: names.service, port: { name: names.portName } } },
            })),
          },
        })),
      },
    },
  ];
}

/**
 * Gateway API: an HTTPRoute to the service's Service and Envoy Gateway's `SecurityPolicy` that asks the hook
 * (ext_authz HTTP) first; a ReferenceGrant lets the policy name the hook's Service in the platform namespace.
 */
export function gatewayObjects(service: ServiceConfig, options: RenderOptions): K8sObject[] {
  const names = namesOf(service);
  if (service.hosts.length === 0) return [];
  return [
    {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: meta(service, names.service),
      spec: {
        parentRefs: [{ name: options.gateway.name, namespace: options.gateway.namespace }],
        hostnames: service.hosts.map((h) => h.replace(/:\d+$/, "")),
        rules: [
          {
            matches: pathsOf(service).map((value) => ({ path: { type: "PathPrefix", value } })),
            backendRefs: [{ name: names.service, port: 80 }],
            timeouts: { request: `${service.timeoutSeconds}s` },
          },
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
            backendRefs: [{ name: "thaw-ingress-hook", namespace: options.systemNamespace, port: HOOK_PORT }],
            path: ENVOY_PREFIX,
            headersToBackend: ALLOW_HEADERS,
          },
          headersToExtAuth: CHECKED_HEADERS,
          failOpen: false,
        },
      },
    },
  ];
}

/** The ReferenceGrant that lets SecurityPolicies in the service namespaces use the hook's Service. */
export function hookReferenceGrant(options: RenderOptions, namespaces: readonly string[]): K8sObject {
  return {
    apiVersion: "gateway.networking.k8s.io/v1beta1",
    kind: "ReferenceGrant",
    metadata: { name: "thaw-ingress-hook", namespace: options.systemNamespace, labels: { ...PART_OF } },
    spec: {
      from: [...new Set(namespaces)]
        .sort()
        .map((namespace) => ({ group: "gateway.envoyproxy.io", kind: "SecurityPolicy", namespace })),
      to: [{ group: "", kind: "Service", name: "thaw-ingress-hook" }],
    },
  };
}

/** Istio: a CUSTOM AuthorizationPolicy on the ingress gateway for the service's hosts (provider in docs). */
export function istioPolicy(service: ServiceConfig, options: RenderOptions): K8sObject[] {
  if (service.hosts.length === 0) return [];
  const names = namesOf(service);
  return [
    {
      apiVersion: "security.istio.io/v1",
      kind: "AuthorizationPolicy",
      metadata: {
        name: `thaw-${names.namespace}-${names.service}`,
        namespace: options.istioNamespace,
        labels: { ...PART_OF },
      },
      spec: {
        selector: { matchLabels: { istio: "ingressgateway" } },
        action: "CUSTOM",
        provider: { name: "thaw-ingress-hook" },
        rules: [{ to: [{ operation: { hosts: service.hosts, ...istioPaths(service) } }] }],
      },
    },
  ];
}

/** Istio matches a path exactly or by a trailing `*`: each prefix as itself and as `<prefix>/*`. */
function istioPaths(service: ServiceConfig): { paths?: string[] } {
  if (service.paths.length === 0) return {};
  return { paths: service.paths.flatMap((p) => [p, `${p.replace(/\/$/, "")}/*`]) };
}
