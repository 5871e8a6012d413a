import { applyPatch } from "./resources.js";
import { ApiError, type ApiObject, type Store } from "./store.js";

/** The `scale` subresource of a Deployment (autoscaling/v1 Scale), sharing the Deployment's resourceVersion. */
export function scaleSubresource(
  store: Store,
  method: string,
  namespace: string,
  name: string,
  body: unknown,
  contentType: string | undefined,
): [number, unknown] {
  const d = store.get("deployments", namespace, name);
  if (!d) throw new ApiError(404, `deployments.apps "${name}" not found`, "NotFound");
  const scaleOf = (dep: ApiObject) => {
    const spec = (dep.spec ?? {}) as {
      replicas?: number;
      selector?: { matchLabels?: Record<string, string> };
    };
    const status = (dep.status ?? {}) as { replicas?: number };
    const selector = Object.entries(spec.selector?.matchLabels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    return {
      apiVersion: "autoscaling/v1",
      kind: "Scale",
      metadata: {
        name,
        namespace,
        uid: dep.metadata.uid,
        resourceVersion: dep.metadata.resourceVersion,
        creationTimestamp: dep.metadata.creationTimestamp,
      },
      spec: { replicas: spec.replicas ?? 1 },
      status: { replicas: status.replicas ?? 0, selector },
    };
  };
  if (method === "GET") return [200, scaleOf(d)];
  if (method !== "PATCH" && method !== "PUT")
    throw new ApiError(405, `method ${method} is not allowed on scale`);
  const next = (method === "PATCH" ? applyPatch(scaleOf(d), body, contentType) : body) as {
    metadata?: { resourceVersion?: string };
    spec?: { replicas?: unknown };
  };
  const replicas = next?.spec?.replicas;
  if (!Number.isInteger(replicas) || (replicas as number) < 0) {
    throw new ApiError(
      422,
      `Scale.autoscaling "${name}" is invalid: spec.replicas: must be greater than or equal to 0`,
      "Invalid",
    );
  }
  const updated = store.update("deployments", namespace, name, {
    ...d,
    metadata: { ...d.metadata, resourceVersion: next.metadata?.resourceVersion ?? "" },
    spec: { ...(d.spec as object), replicas },
  });
  return [200, scaleOf(updated)];
}
