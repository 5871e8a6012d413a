import { DiscoveryV1Api, type KubeConfig, type V1EndpointSlice } from "@kubernetes/client-node";
import type { Clock } from "@thaw/clock";
import { type EndpointPod, podsFromSlices } from "../endpoint-pods.js";
import type { EndpointSliceLike } from "../types.js";
import { Informer } from "./informer.js";
import type { Logger } from "./logger.js";

/** Options of {@link EndpointSliceHub}. */
export interface EndpointSliceHubOptions {
  kubeConfig: KubeConfig;
  clock: Clock;
  random: () => number;
  logger?: Logger;
  /** Watch timeout asked of the server (default 300 s). */
  timeoutSeconds?: number;
  /** First relist / rewatch delay after a failure (default 500 ms). */
  backoffInitialMs?: number;
}

/** A Service to follow: its namespace and name. */
export interface ServiceRef {
  namespace: string;
  service: string;
}

interface Shared {
  informer: Informer<V1EndpointSlice>;
  listeners: Set<(slices: EndpointSliceLike[]) => void>;
}

/**
 * Follows Services through their EndpointSlices (`kubernetes.io/service-name=<service>`): one informer per
 * Service however many subscribers it has, started on the first subscription and stopped after the last.
 */
export class EndpointSliceHub {
  readonly #o: EndpointSliceHubOptions;
  readonly #api: DiscoveryV1Api;
  readonly #shared = new Map<string, Shared>();

  constructor(o: EndpointSliceHubOptions) {
    this.#o = o;
    this.#api = o.kubeConfig.makeApiClient(DiscoveryV1Api);
  }

  /** Calls `onChange` with the Service's slices now (if listed already) and after every change. */
  subscribe(ref: ServiceRef, onChange: (slices: EndpointSliceLike[]) => void): () => void {
    const key = `${ref.namespace}/${ref.service}`;
    let s = this.#shared.get(key);
    if (!s) {
      const listeners = new Set<(slices: EndpointSliceLike[]) => void>();
      const labelSelector = `kubernetes.io/service-name=${ref.service}`;
      const informer = new Informer<V1EndpointSlice>({
        kubeConfig: this.#o.kubeConfig,
        clock: this.#o.clock,
        random: this.#o.random,
        ...(this.#o.logger ? { logger: this.#o.logger } : {}),
        ...(this.#o.timeoutSeconds ? { timeoutSeconds: this.#o.timeoutSeconds } : {}),
        ...(this.#o.backoffInitialMs ? { backoff: { initialMs: this.#o.backoffInitialMs } } : {}),
        path: `/apis/discovery.k8s.io/v1/namespaces/${ref.namespace}/endpointslices`,
        selectors: { labelSelector },
        list: async () => {
          const l = await this.#api.listNamespacedEndpointSlice({ namespace: ref.namespace, labelSelector });
          return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
        },
        onChange: (objects) => {
          const slices = [...objects.values()] as EndpointSliceLike[];
          for (const l of listeners) l(slices);
        },
      });
      s = { informer, listeners };
      this.#shared.set(key, s);
      informer.start();
    }
    const shared = s;
    shared.listeners.add(onChange);
    if (shared.informer.synced) onChange([...shared.informer.objects.values()] as EndpointSliceLike[]);
    return () => {
      shared.listeners.delete(onChange);
      if (shared.listeners.size === 0 && this.#shared.get(key) === shared) {
        shared.informer.stop();
        this.#shared.delete(key);
      }
    };
  }

  /** Same as `subscribe`, with the slices already merged into pods on the named port. */
  subscribePods(
    ref: ServiceRef & { portName?: string },
    onChange: (pods: EndpointPod[]) => void,
  ): () => void {
    return this.subscribe(ref, (slices) =>
      onChange(podsFromSlices(slices, ref.portName === undefined ? {} : { portName: ref.portName })),
    );
  }

  /** The informer behind a Service, if one runs (tests, metrics). */
  informerOf(ref: ServiceRef): Informer<V1EndpointSlice> | undefined {
    return this.#shared.get(`${ref.namespace}/${ref.service}`)?.informer;
  }

  /** Stops every informer. */
  close(): void {
    for (const s of this.#shared.values()) {
      s.informer.stop();
      s.listeners.clear();
    }
    this.#shared.clear();
  }
}
