import { CoreV1Api, type KubeConfig, type V1Pod } from "@kubernetes/client-node";
import type { Clock } from "@thaw/clock";
import { Informer } from "./informer.js";
import type { Logger } from "./logger.js";

/** Options of {@link watchPods}. */
export interface PodWatchOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  /** The pods of one workload: its Deployment's `spec.selector` as a label selector. */
  labelSelector: string;
  clock: Clock;
  random: () => number;
  logger?: Logger;
  backoffInitialMs?: number;
  /** Called with every pod now, after every change and each list. */
  onChange: (pods: V1Pod[]) => void;
}

/**
 * Follows the pods of one workload (list + watch with its label selector; RBAC `list` and `watch` on
 * `pods`): their conditions and container statuses tell a cold start's phases and why an app is failing.
 * Returns the stop.
 */
export function watchPods(o: PodWatchOptions): () => void {
  const api = o.kubeConfig.makeApiClient(CoreV1Api);
  const informer = new Informer<V1Pod>({
    kubeConfig: o.kubeConfig,
    clock: o.clock,
    random: o.random,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.backoffInitialMs ? { backoff: { initialMs: o.backoffInitialMs } } : {}),
    path: `/api/v1/namespaces/${o.namespace}/pods`,
    selectors: { labelSelector: o.labelSelector },
    list: async () => {
      const l = await api.listNamespacedPod({ namespace: o.namespace, labelSelector: o.labelSelector });
      return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
    },
    onChange: (pods) => o.onChange([...pods.values()]),
  });
  informer.start();
  return () => informer.stop();
}
