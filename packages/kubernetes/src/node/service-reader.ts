import { CoreV1Api, type KubeConfig, type V1Service } from "@kubernetes/client-node";
import type { Clock } from "@thaw/clock";
import type { ServiceLike } from "../types.js";
import { type ApiFailure, apiFailure } from "./api-error.js";
import { Informer } from "./informer.js";
import type { Logger } from "./logger.js";

/** Options of {@link ServiceReader}. */
export interface ServiceReaderOptions {
  kubeConfig: KubeConfig;
  namespace: string;
  name: string;
  clock: Clock;
  random: () => number;
  logger?: Logger;
  timeoutSeconds?: number;
  backoffInitialMs?: number;
  /** Called on every change of the Service (undefined = it does not exist). */
  onChange: (s: ServiceLike | undefined) => void;
  /**
   * Called once when the API refuses the list with 403 (the ServiceAccount may not read Services); the
   * reader then stops instead of retrying a permission that will not appear by itself.
   */
  onForbidden?: (f: ApiFailure) => void;
}

/** Follows one Service (list + watch with `fieldSelector=metadata.name=<name>`), e.g. for its ClusterIP. */
export class ServiceReader {
  readonly #informer: Informer<V1Service>;

  constructor(o: ServiceReaderOptions) {
    const api = o.kubeConfig.makeApiClient(CoreV1Api);
    const fieldSelector = `metadata.name=${o.name}`;
    this.#informer = new Informer<V1Service>({
      kubeConfig: o.kubeConfig,
      clock: o.clock,
      random: o.random,
      ...(o.logger ? { logger: o.logger } : {}),
      ...(o.timeoutSeconds ? { timeoutSeconds: o.timeoutSeconds } : {}),
      ...(o.backoffInitialMs ? { backoff: { initialMs: o.backoffInitialMs } } : {}),
      path: `/api/v1/namespaces/${o.namespace}/services`,
      selectors: { fieldSelector },
      list: async () => {
        try {
          const l = await api.listNamespacedService({ namespace: o.namespace, fieldSelector });
          return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
        } catch (err) {
          const f = apiFailure(err, `list /api/v1/namespaces/${o.namespace}/services`);
          if (f.status === 403 && o.onForbidden) {
            this.#informer.stop();
            o.onForbidden(f);
          }
          throw err;
        }
      },
      onChange: (objects) => o.onChange([...objects.values()][0] as ServiceLike | undefined),
    });
  }

  /** Starts following. */
  start(): void {
    this.#informer.start();
  }

  /** Stops following. */
  stop(): void {
    this.#informer.stop();
  }
}
