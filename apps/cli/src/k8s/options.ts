/** What `thaw k8s render` takes besides thaw.config.yaml: where images come from and where the platform runs. */
export interface RenderOptions {
  /** Image registry and owner, e.g. `ghcr.io/thaw-dev` (a placeholder: change it to yours). */
  imageRegistry: string;
  /** Tag of every Thaw image. */
  imageTag: string;
  /** Namespace of the autoscaler, activator and hook. */
  systemNamespace: string;
  /** Namespaces whose ingress pods may reach the queue-proxies (ingress-nginx, Envoy Gateway, Istio). */
  ingressNamespaces: readonly string[];
  /** IngressClass of the ingress-nginx Ingresses. */
  ingressClass: string;
  /** The Gateway the HTTPRoutes attach to. */
  gateway: { namespace: string; name: string };
  /** Namespace of Istio's ingress gateway (where the CUSTOM AuthorizationPolicy goes). */
  istioNamespace: string;
}

/** Defaults of {@link RenderOptions}; the registry is a placeholder. */
export const DEFAULT_RENDER_OPTIONS: RenderOptions = {
  imageRegistry: "ghcr.io/thaw-dev",
  imageTag: "0.1.0",
  systemNamespace: "thaw-system",
  ingressNamespaces: ["ingress-nginx", "envoy-gateway-system", "istio-system"],
  ingressClass: "nginx",
  gateway: { namespace: "default", name: "eg" },
  istioNamespace: "istio-system",
};

/** Where the config file is mounted in every platform pod (from the kustomize-generated ConfigMap). */
export const CONFIG_MOUNT_DIR = "/etc/thaw";
/** The config path the platform bins get with `--config`. */
export const CONFIG_PATH = `${CONFIG_MOUNT_DIR}/thaw.config.yaml`;
/** The Secret the operator creates (`kubectl create secret generic thaw-token ...`). */
export const TOKEN_SECRET = "thaw-token";
/** The ConfigMap kustomize generates from thaw.config.yaml. */
export const CONFIG_MAP = "thaw-config";
/** Label every rendered object carries. */
export const PART_OF = { "app.kubernetes.io/part-of": "thaw" } as const;

/** An image reference for one of Thaw's components. */
export function imageOf(options: RenderOptions, component: string): string {
  return `${options.imageRegistry}/${component}:${options.imageTag}`;
}
