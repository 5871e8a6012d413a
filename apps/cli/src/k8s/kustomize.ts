import { CONFIG_MAP, type RenderOptions } from "./options.js";

const KUSTOMIZATION = { apiVersion: "kustomize.config.k8s.io/v1beta1", kind: "Kustomization" };

/** The platform base: no `namespace:` transformer, since its Roles live in the service namespaces. */
export function baseKustomization(options: RenderOptions, resources: string[]): Record<string, unknown> {
  return {
    ...KUSTOMIZATION,
    resources,
    configMapGenerator: [
      { name: CONFIG_MAP, namespace: options.systemNamespace, files: ["thaw.config.yaml"] },
    ],
  };
}

/** A kustomization that lists files. */
export function listKustomization(resources: string[]): Record<string, unknown> {
  return { ...KUSTOMIZATION, resources };
}

function replicasPatch(names: string, replicas: number): Record<string, unknown> {
  return {
    target: { kind: "Deployment", name: names },
    patch: JSON.stringify([{ op: "replace", path: "/spec/replicas", value: replicas }]),
  };
}

/** `dev`: one replica of each component; `prod`: three activators and hooks, two autoscalers. */
export function overlayKustomization(kind: "dev" | "prod"): Record<string, unknown> {
  const patches =
    kind === "dev"
      ? [replicasPatch("thaw-(autoscaler|activator|ingress-hook)", 1)]
      : [replicasPatch("thaw-(activator|ingress-hook)", 3), replicasPatch("thaw-autoscaler", 2)];
  return { ...KUSTOMIZATION, resources: ["../../base", "../../services"], patches };
}
