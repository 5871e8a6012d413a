import {
  AppsV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  type V1EndpointSlice,
  Watch,
} from "@kubernetes/client-node";
import { type Logger, silentLogger } from "../logger.js";
import { keyOf, type RevisionKey } from "../revision.js";
import type { PodInfo, Scaler } from "./scaler.js";

/** One revision backed by a Kubernetes Deployment and the Service in front of its queue-proxies. */
export interface KubernetesTarget extends RevisionKey {
  /** Namespace of the Deployment and Service (default: the revision's namespace). */
  kubernetesNamespace?: string;
  deployment: string;
  /** Service whose EndpointSlices list the pods (default: the Deployment's name). */
  service?: string;
  /** EndpointSlice port name of the queue-proxy's serving port (default `http`). */
  portName?: string;
  /** Queue-proxy metrics port for scraping (default 9090). */
  metricsPort?: number;
}

/** Options of {@link KubernetesScaler}. */
export interface KubernetesScalerOptions {
  /** In cluster: `kc.loadFromCluster()`; elsewhere `kc.loadFromDefault()` or `kc.loadFromFile(path)`. */
  kubeConfig: KubeConfig;
  logger?: Logger;
  /** Wait before re-opening a watch that ended (default 1 s). */
  rewatchMs?: number;
}

interface Entry {
  target: Required<Omit<KubernetesTarget, "kubernetesNamespace">> & { ns: string };
  /** EndpointSlices by name: a Service can have several. */
  slices: Map<string, V1EndpointSlice>;
  listeners: Set<(pods: PodInfo[]) => void>;
  abort: AbortController | undefined;
  stopped: boolean;
}

/**
 * Scales Deployments through their `scale` subresource (a merge patch of `spec.replicas`) and follows their
 * pods through a watch on the Service's EndpointSlices (`kubernetes.io/service-name=<service>`).
 */
export class KubernetesScaler implements Scaler {
  readonly #apps: AppsV1Api;
  readonly #watch: Watch;
  readonly #targets = new Map<string, Entry>();
  readonly #log: Logger;
  readonly #rewatchMs: number;

  constructor(options: KubernetesScalerOptions) {
    this.#apps = options.kubeConfig.makeApiClient(AppsV1Api);
    this.#watch = new Watch(options.kubeConfig);
    this.#log = options.logger ?? silentLogger;
    this.#rewatchMs = options.rewatchMs ?? 1000;
  }

  /** Declares a revision and starts watching its EndpointSlices. */
  register(target: KubernetesTarget): void {
    const entry: Entry = {
      target: {
        namespace: target.namespace,
        name: target.name,
        ns: target.kubernetesNamespace ?? target.namespace,
        deployment: target.deployment,
        service: target.service ?? target.deployment,
        portName: target.portName ?? "http",
        metricsPort: target.metricsPort ?? 9090,
      },
      slices: new Map(),
      listeners: new Set(),
      abort: undefined,
      stopped: false,
    };
    this.#targets.set(keyOf(target), entry);
    void this.#startWatch(entry);
  }

  async scale(rev: RevisionKey, desired: number): Promise<void> {
    const { target } = this.#get(rev);
    await this.#apps.patchNamespacedDeploymentScale(
      { name: target.deployment, namespace: target.ns, body: { spec: { replicas: desired } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
  }

  pods(rev: RevisionKey): PodInfo[] {
    const e = this.#targets.get(keyOf(rev));
    return e ? podsOf(e) : [];
  }

  subscribe(rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void {
    const e = this.#get(rev);
    e.listeners.add(onChange);
    return () => e.listeners.delete(onChange);
  }

  async close(): Promise<void> {
    for (const e of this.#targets.values()) {
      e.stopped = true;
      e.abort?.abort();
      e.listeners.clear();
    }
  }

  #get(rev: RevisionKey): Entry {
    const e = this.#targets.get(keyOf(rev));
    if (!e) throw new Error(`revision ${keyOf(rev)} is not registered with the Kubernetes scaler`);
    return e;
  }

  async #startWatch(e: Entry): Promise<void> {
    if (e.stopped) return;
    const path = `/apis/discovery.k8s.io/v1/namespaces/${e.target.ns}/endpointslices`;
    const again = () => {
      if (!e.stopped) setTimeout(() => void this.#startWatch(e), this.#rewatchMs).unref();
    };
    try {
      // A fresh watch lists every existing slice as ADDED first, so the map is rebuilt from scratch.
      e.slices.clear();
      e.abort = await this.#watch.watch(
        path,
        { labelSelector: `kubernetes.io/service-name=${e.target.service}` },
        (phase, obj: V1EndpointSlice) => {
          const name = obj.metadata?.name ?? "";
          if (phase === "DELETED") e.slices.delete(name);
          else if (phase === "ADDED" || phase === "MODIFIED") e.slices.set(name, obj);
          else return;
          const pods = podsOf(e);
          for (const l of e.listeners) l(pods);
        },
        (err: unknown) => {
          if (err && !e.stopped) this.#log.warn("EndpointSlice watch ended", { error: String(err) });
          again();
        },
      );
    } catch (err) {
      this.#log.warn("EndpointSlice watch failed", { service: e.target.service, error: String(err) });
      again();
    }
  }
}

/** Pods from the slices: one per endpoint address, ready per `conditions.ready` (absent = ready). */
function podsOf(e: Entry): PodInfo[] {
  const out: PodInfo[] = [];
  for (const slice of e.slices.values()) {
    const port = slice.ports?.find((p) => p.name === e.target.portName)?.port;
    if (!port) continue;
    for (const ep of slice.endpoints ?? []) {
      const ip = ep.addresses?.[0];
      if (!ip || ep.conditions?.terminating === true) continue;
      const host = ip.includes(":") ? `[${ip}]` : ip;
      out.push({
        name: ep.targetRef?.name ?? ip,
        address: `${host}:${port}`,
        metricsUrl: `http://${host}:${e.target.metricsPort}/metrics`,
        ready: ep.conditions?.ready !== false,
        // The slice does not say when a pod started; 0 makes it count as settled for scrape sampling.
        startedAt: 0,
      });
    }
  }
  return out;
}
