/**
 * The few Kubernetes object shapes this package reads, as plain structural types, so the portable code
 * needs no client library (the Node side passes @kubernetes/client-node's objects, which fit them).
 */

/** `metadata` as far as informers and the annotation reader use it. */
export interface ObjectMetaLike {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** An object with metadata (what an informer stores). */
export interface KubeObject {
  metadata?: ObjectMetaLike;
}

/** `discovery.k8s.io/v1` Endpoint: addresses of one backend and its conditions. */
export interface EndpointLike {
  addresses: string[];
  conditions?: { ready?: boolean | null; serving?: boolean | null; terminating?: boolean | null };
  targetRef?: { kind?: string; name?: string; namespace?: string; uid?: string };
  nodeName?: string;
  zone?: string;
}

/** `discovery.k8s.io/v1` EndpointSlice. */
export interface EndpointSliceLike extends KubeObject {
  addressType: string;
  endpoints: EndpointLike[];
  ports?: { name?: string; port?: number; protocol?: string }[];
}

/** `v1` Service, as far as its ClusterIP and ports go. */
export interface ServiceLike extends KubeObject {
  spec?: {
    clusterIP?: string;
    clusterIPs?: string[];
    ports?: { name?: string; port?: number; protocol?: string }[];
  };
}
