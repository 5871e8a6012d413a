import { AppsV1Api, type V1Deployment } from "@kubernetes/client-node";
import type { Informer } from "./informer.js";
import { type NamedObjectOptions, namedObjectInformer } from "./named-object-informer.js";

/** What Thaw reads of a Deployment. */
export interface DeploymentView {
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  /** `spec.replicas` (unset means 1 to Kubernetes). */
  specReplicas: number | undefined;
  /** `status.readyReplicas`, 0 when unset. */
  readyReplicas: number;
  /** `status.replicas`, 0 when unset. */
  statusReplicas: number;
  resourceVersion: string | undefined;
  /** `spec.selector.matchLabels` as a label selector (`k=v,k2=v2`): its pods; undefined when it has none. */
  selector: string | undefined;
}

/** Options of {@link DeploymentReader}. */
export interface DeploymentReaderOptions extends NamedObjectOptions {
  /** Called on every change of the Deployment (undefined = it does not exist). */
  onChange: (d: DeploymentView | undefined) => void;
}

/** Follows one Deployment (list + watch with `fieldSelector=metadata.name=<name>`). */
export class DeploymentReader {
  readonly #informer: Informer<V1Deployment>;
  #view: DeploymentView | undefined;

  constructor(o: DeploymentReaderOptions) {
    const api = o.kubeConfig.makeApiClient(AppsV1Api);
    this.#informer = namedObjectInformer<V1Deployment>(
      o,
      {
        path: `/apis/apps/v1/namespaces/${o.namespace}/deployments`,
        list: async (fieldSelector) => {
          const l = await api.listNamespacedDeployment({ namespace: o.namespace, fieldSelector });
          return { items: l.items, resourceVersion: l.metadata?.resourceVersion ?? "" };
        },
      },
      (d) => {
        this.#view = d ? viewOf(d, o.namespace) : undefined;
        o.onChange(this.#view);
      },
    );
  }

  /** The Deployment as last seen. */
  get view(): DeploymentView | undefined {
    return this.#view;
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

function viewOf(d: V1Deployment, namespace: string): DeploymentView {
  return {
    namespace: d.metadata?.namespace ?? namespace,
    name: d.metadata?.name ?? "",
    annotations: { ...(d.metadata?.annotations ?? {}) },
    specReplicas: d.spec?.replicas,
    readyReplicas: d.status?.readyReplicas ?? 0,
    statusReplicas: d.status?.replicas ?? 0,
    resourceVersion: d.metadata?.resourceVersion,
    selector: labelSelector(d.spec?.selector?.matchLabels),
  };
}

function labelSelector(labels: Record<string, string> | undefined): string | undefined {
  const pairs = Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`);
  return pairs.length > 0 ? pairs.sort().join(",") : undefined;
}
