import type { KubeConfig } from "@kubernetes/client-node";
import type { Clock } from "@thaw/clock";
import { type EndpointPod, type PodPhase, type PodStatusProblem, podsFromSlices } from "@thaw/kubernetes";
import {
  DeploymentReader,
  type DeploymentView,
  EndpointSliceHub,
  PodEventHub,
  ScaleWriter,
  watchPods,
} from "@thaw/kubernetes/node";
import { type Logger, silentLogger } from "../logger.js";
import { keyOf, type RevisionKey } from "../revision.js";
import { followPodPorts } from "./pod-ports.js";
import { PodStatusTracker } from "./pod-status-tracker.js";
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
  /** In a pod, `kubeConfigFor()` from @thaw/kubernetes/node finds the ServiceAccount. */
  kubeConfig: KubeConfig;
  clock: Clock;
  /** [0, 1): backoff jitter. */
  random?: () => number;
  logger?: Logger;
  /** Whether this replica may write scale at start (default true; leader election turns it on and off). */
  leading?: boolean;
  /** First retry delay of the API clients after a failure (default 500 ms). */
  backoffInitialMs?: number;
  /** Called with a Deployment's state on every change (annotations feed the revision's policy). */
  onDeployment?: (rev: RevisionKey, d: DeploymentView | undefined) => void;
  /**
   * A revision's pod reached a cold-start phase (created, scheduled, sandbox ready, started, ready). With
   * this or `onProblem`, the scaler follows the Deployment's pods (RBAC: list and watch on pods).
   */
  onPodPhase?: (rev: RevisionKey, phase: PodPhase, at: number, pod: string) => void;
  /**
   * Why a revision's pods do not serve, read from their container statuses and their Warning Events (RBAC:
   * list and watch on pods and on events); undefined = nothing wrong now.
   */
  onProblem?: (rev: RevisionKey, problem: PodStatusProblem | undefined) => void;
}

interface Entry {
  rev: RevisionKey;
  target: { ns: string; deployment: string; service: string; portName: string; metricsPort: number };
  pods: PodInfo[];
  listeners: Set<(pods: PodInfo[]) => void>;
  writer: ScaleWriter;
  reader: DeploymentReader;
  /** The Deployment's `spec.replicas` as last seen (unset = 1), undefined before the first list. */
  replicas: number | undefined;
  /** The label selector the pod watch runs with, and its stop (the pods' and their events'). */
  podWatch: { selector: string; stop: () => void } | undefined;
  stop: () => void;
}

/**
 * Scales Deployments through @thaw/kubernetes: a reconciling writer on the `scale` subresource (reads
 * back, merge-patches with the version it read, retries with backoff, keeps the last error), pods from
 * the Service's EndpointSlices (list then watch, merged across address families, terminating pods not
 * ready), and the Deployment itself followed for its `autoscaling.knative.dev/*` annotations. Only a
 * leader writes (`setLeading`); a follower keeps every informer warm so it can take over at once.
 */
export class KubernetesScaler implements Scaler {
  readonly #o: KubernetesScalerOptions;
  readonly #hub: EndpointSliceHub;
  readonly #events: PodEventHub;
  readonly #common: {
    kubeConfig: KubeConfig;
    clock: Clock;
    random: () => number;
    logger: Logger;
    backoffInitialMs?: number;
  };
  readonly #targets = new Map<string, Entry>();
  readonly #log: Logger;
  #leading: boolean;

  constructor(options: KubernetesScalerOptions) {
    this.#o = options;
    this.#log = options.logger ?? silentLogger;
    this.#leading = options.leading ?? true;
    // What every API client of this scaler is made with (the hubs here, each revision's in register()).
    this.#common = {
      kubeConfig: options.kubeConfig,
      clock: options.clock,
      random: options.random ?? Math.random,
      logger: this.#log,
      ...(options.backoffInitialMs ? { backoffInitialMs: options.backoffInitialMs } : {}),
    };
    this.#hub = new EndpointSliceHub(this.#common);
    this.#events = new PodEventHub(this.#common);
  }

  /** Declares a revision: starts following its pods and its Deployment. */
  register(target: KubernetesTarget): void {
    const o = this.#o;
    const t = {
      ns: target.kubernetesNamespace ?? target.namespace,
      deployment: target.deployment,
      service: target.service ?? target.deployment,
      portName: target.portName ?? "http",
      metricsPort: target.metricsPort ?? 9090,
    };
    const rev = { namespace: target.namespace, name: target.name };
    const common = this.#common;
    const writer = new ScaleWriter({
      ...common,
      namespace: t.ns,
      deployment: t.deployment,
      // The Deployment informer below: a scale from zero is then one PATCH, not GET + PATCH.
      known: () => {
        const d = reader.view;
        return d && { replicas: d.specReplicas ?? 1, resourceVersion: d.resourceVersion };
      },
    });
    writer.setEnabled(this.#leading);
    const reader = new DeploymentReader({
      ...common,
      namespace: t.ns,
      name: t.deployment,
      onChange: (d) => {
        entry.replicas = d ? (d.specReplicas ?? 1) : undefined;
        this.#followPods(entry, d?.selector, common);
        o.onDeployment?.(rev, d);
      },
    });
    const entry: Entry = {
      rev,
      target: t,
      pods: [],
      listeners: new Set(),
      writer,
      reader,
      replicas: undefined,
      podWatch: undefined,
      stop: () => {},
    };
    this.#targets.set(keyOf(rev), entry);
    const unsubscribe = this.#hub.subscribe({ namespace: t.ns, service: t.service }, (slices) => {
      entry.pods = podsFromSlices(slices, { portName: t.portName }).map((p) => podInfo(p, t.metricsPort));
      for (const l of entry.listeners) l(entry.pods);
    });
    reader.start();
    entry.stop = () => {
      unsubscribe();
      reader.stop();
      writer.close();
      entry.podWatch?.stop();
    };
  }

  /** (Re)starts following the revision's pods when the Deployment's selector is new. */
  #followPods(
    entry: Entry,
    selector: string | undefined,
    common: Pick<Parameters<typeof watchPods>[0], "kubeConfig" | "clock" | "random" | "logger">,
  ): void {
    const o = this.#o;
    if ((!o.onPodPhase && !o.onProblem) || selector === entry.podWatch?.selector) return;
    entry.podWatch?.stop();
    entry.podWatch = undefined;
    if (selector === undefined) return;
    const rev = entry.rev;
    const tracker = new PodStatusTracker({
      onPhase: (phase, at, pod) => o.onPodPhase?.(rev, phase, at, pod),
      onProblem: (problem) => o.onProblem?.(rev, problem),
    });
    const stopPods = watchPods({
      ...common,
      ...(o.backoffInitialMs ? { backoffInitialMs: o.backoffInitialMs } : {}),
      namespace: entry.target.ns,
      labelSelector: selector,
      onChange: (pods) => tracker.update(pods, o.clock.now()),
    });
    // The kubelet's and the scheduler's Warnings say what no status does (a failing probe, a mount).
    const stopEvents = o.onProblem
      ? this.#events.subscribe(
          entry.target.ns,
          (pod) => tracker.follows(pod),
          (of) => tracker.events(of),
        )
      : () => {};
    // And what only the pod itself can tell: which port its app listens on, if not $PORT.
    const stopPorts = o.onProblem ? followPodPorts(tracker, entry.target.metricsPort, o.clock) : () => {};
    entry.podWatch = {
      selector,
      stop: () => {
        stopPods();
        stopEvents();
        stopPorts();
      },
    };
  }

  /** Resolves once the API holds `desired`; rejects with the attempt's error (`ERR_NOT_LEADER` on a follower). */
  scale(rev: RevisionKey, desired: number): Promise<void> {
    return this.#get(rev).writer.want(desired);
  }

  /** The Deployment's `spec.replicas` as the API reports it (unset = 1); undefined until first read. */
  replicas(rev: RevisionKey): number | undefined {
    return this.#targets.get(keyOf(rev))?.replicas;
  }

  pods(rev: RevisionKey): PodInfo[] {
    return this.#targets.get(keyOf(rev))?.pods ?? [];
  }

  subscribe(rev: RevisionKey, onChange: (pods: PodInfo[]) => void): () => void {
    const e = this.#get(rev);
    e.listeners.add(onChange);
    return () => e.listeners.delete(onChange);
  }

  /** Turns scale writing on (this replica leads) or off (it follows). */
  setLeading(leading: boolean): void {
    this.#leading = leading;
    for (const e of this.#targets.values()) e.writer.setEnabled(leading);
  }

  /** The writer's view of a revision's Deployment: desired, observed, last error. */
  writerStatus(rev: RevisionKey) {
    return this.#targets.get(keyOf(rev))?.writer.status();
  }

  async close(): Promise<void> {
    for (const e of this.#targets.values()) {
      e.stop();
      e.listeners.clear();
    }
    this.#hub.close();
    this.#events.close();
  }

  #get(rev: RevisionKey): Entry {
    const e = this.#targets.get(keyOf(rev));
    if (!e) throw new Error(`revision ${keyOf(rev)} is not registered with the Kubernetes scaler`);
    return e;
  }
}

/** A pod as the autoscaler counts it: ready = routable (ready and not terminating). */
function podInfo(p: EndpointPod, metricsPort: number): PodInfo {
  const host = p.family === "IPv6" ? `[${p.ip}]` : p.ip;
  return {
    name: p.name,
    address: p.address,
    metricsUrl: `http://${host}:${metricsPort}/metrics`,
    ready: p.routable,
    // The slice does not say when a pod started; 0 makes it count as settled for scrape sampling.
    startedAt: 0,
  };
}
