import type { ObjectInput } from "./store.js";

/** One endpoint of {@link endpointSlice}: a pod's address and its conditions (unset = left out, as kubelet may). */
export interface SliceEndpoint {
  ip: string;
  pod?: string;
  uid?: string;
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

/** An EndpointSlice of a Service as the EndpointSlice controller writes it. */
export function endpointSlice(o: {
  service: string;
  name?: string;
  addressType?: "IPv4" | "IPv6" | "FQDN";
  portName?: string;
  port: number;
  endpoints: SliceEndpoint[];
}): ObjectInput {
  const addressType = o.addressType ?? "IPv4";
  return {
    metadata: {
      name: o.name ?? `${o.service}-${addressType.toLowerCase()}`,
      labels: {
        "kubernetes.io/service-name": o.service,
        "endpointslice.kubernetes.io/managed-by": "emulator",
      },
    },
    addressType,
    ports: [{ name: o.portName ?? "http", port: o.port, protocol: "TCP" }],
    endpoints: o.endpoints.map((e) => {
      const conditions: Record<string, boolean> = {};
      if (e.ready !== undefined) conditions.ready = e.ready;
      if (e.serving !== undefined) conditions.serving = e.serving;
      if (e.terminating !== undefined) conditions.terminating = e.terminating;
      return {
        addresses: [e.ip],
        conditions,
        ...(e.pod ? { targetRef: { kind: "Pod", name: e.pod, ...(e.uid ? { uid: e.uid } : {}) } } : {}),
      };
    }),
  };
}

/** A Deployment with a replica count and annotations (the emulator runs no controller: status is yours to set). */
export function deployment(o: {
  name: string;
  replicas?: number;
  annotations?: Record<string, string>;
  readyReplicas?: number;
}): ObjectInput {
  return {
    metadata: { name: o.name, annotations: o.annotations ?? {} },
    spec: {
      replicas: o.replicas ?? 1,
      selector: { matchLabels: { app: o.name } },
      template: {
        metadata: { labels: { app: o.name } },
        spec: { containers: [{ name: "app", image: "app" }] },
      },
    },
    status: { replicas: o.replicas ?? 1, readyReplicas: o.readyReplicas ?? 0 },
  };
}
