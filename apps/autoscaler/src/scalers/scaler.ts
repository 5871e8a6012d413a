import type { RevisionKey } from "../revision.js";

/** One pod of a revision as a scaler sees it. */
export interface PodInfo {
  /** Pod name (reported by the queue-proxy as its `SERVING_POD`). */
  name: string;
  /** `host:port` of the queue-proxy's serving port: where the activator and the hook send requests. */
  address: string;
  /** The queue-proxy's protobuf Stat URL (`http://host:9090/metrics` in a cluster); none = not scraped. */
  metricsUrl?: string;
  /** True once the pod passed its readiness check (Kubernetes readiness, or the queue probe locally). */
  ready: boolean;
  /** When the pod was created, epoch ms (pods older than the stable window are scraped first). */
  startedAt: number;
  /**
   * The pod has a readiness check its queue-proxy cannot see (a container's health check) that has not
   * passed yet: routers must not probe it or send it requests, as they would not see it in a cluster.
   */
  held?: boolean;
}

/**
 * Where replicas come from: local processes, a Kubernetes Deployment, or a webhook. The autoscaler asks
 * for a number of replicas and watches the pods that result.
 */
export interface Scaler {
  /** Asks for `desired` replicas of `rev`; resolves once the request was accepted (not once pods are ready). */
  scale(rev: RevisionKey, desired: number): Promise<void>;
  /**
   * The replica count the platform holds now, when it says (Kubernetes: the Deployment's `spec.replicas`),
   * so a Deployment applied with 1 replica, or changed by hand, is decided from what it has.
   */
  replicas?(rev: RevisionKey): number | undefined;
  /** The revision's pods now, ready or not. */
  pods(rev: RevisionKey): PodInfo[];
  /** Calls `onChange` on every change of the revision's pods (added, ready, gone); returns an unsubscribe. */
  subscribe(rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void;
  /** Stops watching and, for scalers that own their pods, stops every pod. */
  close(): Promise<void>;
}

/** The ready pods' serving addresses: what the activator's endpoint source hands out. */
export function readyAddresses(pods: readonly PodInfo[]): string[] {
  return pods.filter((p) => p.ready).map((p) => p.address);
}
