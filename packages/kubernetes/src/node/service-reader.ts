import { CoreV1Api, type V1Service } from "@kubernetes/client-node";
import type { ServiceLike } from "../types.js";
import { type ApiFailure, apiFailure } from "./api-error.js";
import type { Informer } from "./informer.js";
import { type NamedObjectOptions, namedObjectInformer } from "./named-object-informer.js";

/** Options of {@link ServiceReader}. */
export interface ServiceReaderOptions extends NamedObjectOptions {
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
    const path = `/api/v1/namespaces/${o.namespace}/services`;
    this.#informer = namedObjectInformer<V1Service>(
      o,
      {
        path,
        list: async (fieldSelector) => {
          try {
            const l = await api.listNamespacedService({ namespace: o.namespace, fieldSelector });
            return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
          } catch (err) {
            const f = apiFailure(err, `list ${path}`);
            if (f.status === 403 && o.onForbidden) {
              this.#informer.stop();
              o.onForbidden(f);
            }
            throw err;
          }
        },
      },
      (s) => o.onChange(s as ServiceLike | undefined),
    );
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
