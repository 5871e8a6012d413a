import type { BodyBudgetLimits } from "@thaw/activation";
import type { Clock } from "@thaw/clock";
import { bodyBudgetLimits, formatIssues, type ThawConfig } from "@thaw/config";
import { loadConfigFile } from "@thaw/config/node";
import { clusterIPAddress, type EndpointPod } from "@thaw/kubernetes";
import { EndpointSliceHub, kubeConfigFor, ServiceReader } from "@thaw/kubernetes/node";
import { encodeWireStatMessages, type ProblemNote } from "@thaw/protocol";
import type { EndpointDetail, EndpointSource, Logger, RevisionConfig, RevisionKey } from "../ports.js";
import { StatPump } from "../stat-pump.js";
import { StaticDirectory, StaticEndpointSource } from "../static-sources.js";
import type { ActivatorConfig, ServicePort } from "./config.js";
import type { ActivatorOverrides, PeerSource } from "./server.js";
import { StatFanout } from "./stat-fanout.js";
import { wsStatTransport } from "./ws-stat-transport.js";

/** A revision's Service: where its pods are listed. */
interface ServiceTarget {
  namespace: string;
  service: string;
  portName: string;
}

/** What the activator learns from thaw.config.yaml and the cluster. */
export interface ClusterParts {
  overrides: Pick<ActivatorOverrides, "revisions" | "endpoints" | "peers" | "stats" | "problems" | "onClose">;
  /** Revisions served. */
  count: number;
  /** The config file's token, when it has one. */
  token: string | undefined;
  /** The config file's bounds of all bodies kept for a replay (those it sets). */
  bodyBudget: Partial<BodyBudgetLimits>;
}

const idOf = (k: RevisionKey) => `${k.namespace}/${k.name}`;

/** A service of thaw.config.yaml as the activator serves it. */
function revisionConfigOf(s: ThawConfig["services"][number]): RevisionConfig {
  return {
    containerConcurrency: s.containerConcurrency,
    timeoutSeconds: s.timeoutSeconds,
    responseStartTimeoutSeconds: s.responseStartTimeoutSeconds ?? 0,
    idleTimeoutSeconds: s.idleTimeoutSeconds ?? 0,
    maxQueue: s.maxQueue,
    bodyBufferCap: s.bodyBufferBytes,
  };
}

/**
 * Builds the sources of a cluster activator: the revisions of `--config` (the thaw.config.yaml the
 * autoscaler reads), their pods from the EndpointSlices of each `kubernetes:` service's Service
 * (`webhook:` services keep their static endpoints), the activator replicas from its own Service, and
 * the autoscaler replicas stats go to. Returns undefined when there is nothing cluster-side to do.
 */
export async function clusterParts(
  config: ActivatorConfig,
  deps: { clock: Clock; random?: () => number; logger?: Logger },
): Promise<{ ok: true; value: ClusterParts | undefined } | { ok: false; error: string }> {
  const cluster = config.cluster;
  let cfg: ThawConfig | undefined;
  if (config.configFile) {
    const loaded = await loadConfigFile(config.configFile);
    if (!loaded.ok) return { ok: false, error: formatIssues(loaded.issues, config.configFile) };
    cfg = loaded.value;
  }
  if (!cfg && !cluster?.activatorService && !cluster?.autoscalerService)
    return { ok: true, value: undefined };
  const kubeconfig = cfg?.services.find((s) => s.kubernetes?.kubeconfig)?.kubernetes?.kubeconfig;
  let hub: EndpointSliceHub | undefined;
  const hubOf = () => {
    hub ??= new EndpointSliceHub({
      kubeConfig: kubeConfigFor(kubeconfig ? { kubeconfig } : {}),
      clock: deps.clock,
      random: deps.random ?? Math.random,
      ...(deps.logger ? { logger: deps.logger } : {}),
    });
    return hub;
  };
  // Each revision's Service, for the ClusterIP of the d.3 fallback; same client settings as the hub.
  const serviceOf = (t: ServiceTarget, onChange: (clusterIP: string | undefined) => void) => {
    const reader = new ServiceReader({
      kubeConfig: kubeConfigFor(kubeconfig ? { kubeconfig } : {}),
      namespace: t.namespace,
      name: t.service,
      clock: deps.clock,
      random: deps.random ?? Math.random,
      ...(deps.logger ? { logger: deps.logger } : {}),
      onChange: (svc) => onChange(clusterIPAddress(svc, t.portName)),
      onForbidden: (f) =>
        deps.logger?.warn("cannot read the Service: no ClusterIP fallback for it", {
          service: `${t.namespace}/${t.service}`,
          error: f.message,
          fix: "grant the activator list and watch on services in this namespace",
        }),
    });
    reader.start();
    return () => reader.stop();
  };
  const overrides: ClusterParts["overrides"] = {};
  if (cfg) {
    overrides.revisions = new StaticDirectory(
      cfg.services.map((s) => ({
        key: { namespace: s.namespace, name: s.name },
        config: revisionConfigOf(s),
      })),
    );
    const targets = new Map<string, ServiceTarget>();
    const statics: [RevisionKey, string[]][] = [];
    for (const s of cfg.services) {
      const key = { namespace: s.namespace, name: s.name };
      if (s.kubernetes) {
        targets.set(idOf(key), {
          namespace: s.kubernetes.namespace ?? s.namespace,
          service: s.kubernetes.service ?? s.kubernetes.deployment,
          portName: s.kubernetes.portName,
        });
      } else if (s.webhook) statics.push([key, s.webhook.endpoints]);
    }
    overrides.endpoints =
      targets.size > 0
        ? new SliceEndpointSource(hubOf(), serviceOf, targets, statics)
        : new StaticEndpointSource(statics);
  }
  if (cluster?.activatorService) {
    overrides.peers = peersOf(hubOf(), cluster.namespace, cluster.activatorService, cluster.podIp ?? "");
  }
  if (cluster?.autoscalerService) {
    // Each replica's notes of pod problems (its pod watch), to the activator's gates.
    const listeners = new Set<(note: ProblemNote) => void>();
    const onNote = (note: ProblemNote) => {
      for (const l of listeners) l(note);
    };
    overrides.problems = {
      subscribe: (l) => {
        listeners.add(l);
        return () => listeners.delete(l);
      },
    };
    const fanout = new StatFanout(
      (url) =>
        new StatPump({
          clock: deps.clock,
          encode: encodeWireStatMessages,
          ...(deps.logger ? { logger: deps.logger } : {}),
          transport: wsStatTransport(url, config.token ?? cfg?.token, undefined, onNote),
        }),
    );
    const ref = { namespace: cluster.namespace, ...serviceRef(cluster.autoscalerService) };
    const stop = hubOf().subscribePods(ref, (pods) =>
      fanout.setTargets(pods.filter((p) => p.routable).map((p) => `ws://${p.address}`)),
    );
    overrides.stats = {
      send: (m) => fanout.send(m),
      note: (text) => fanout.note(text),
      health: () => fanout.health(),
      targets: () => fanout.targets,
      close: () => {
        stop();
        fanout.close();
      },
    };
  }
  overrides.onClose = () => hub?.close();
  return {
    ok: true,
    value: {
      overrides,
      count: cfg?.services.length ?? config.revisions.length,
      token: cfg?.token,
      bodyBudget: bodyBudgetLimits(cfg),
    },
  };
}

function serviceRef(p: ServicePort): { service: string; portName?: string } {
  return p.portName ? { service: p.service, portName: p.portName } : { service: p.service };
}

/** The activator replicas: the routable pods of its own Service, by IP. */
function peersOf(hub: EndpointSliceHub, namespace: string, svc: ServicePort, self: string): PeerSource {
  return {
    self,
    subscribe: (onChange) =>
      hub.subscribePods({ namespace, ...serviceRef(svc) }, (pods: EndpointPod[]) =>
        onChange(pods.filter((p) => p.routable).map((p) => p.ip)),
      ),
  };
}

/** Follows a Service's `clusterIP:port`; returns a stop. */
type ServiceFollower = (t: ServiceTarget, onChange: (clusterIP: string | undefined) => void) => () => void;

/**
 * Pods of each revision from its Service's EndpointSlices: every endpoint not terminating, ready or not
 * (the activator's own probe decides, and often finds a pod ready before the kubelet's probe does); and
 * the Service's own ClusterIP on the same port, which the prober falls back to behind a mesh (d.3).
 */
class SliceEndpointSource implements EndpointSource {
  readonly #static: StaticEndpointSource;

  constructor(
    readonly hub: EndpointSliceHub,
    readonly follow: ServiceFollower,
    readonly targets: Map<string, ServiceTarget>,
    statics: [RevisionKey, string[]][],
  ) {
    this.#static = new StaticEndpointSource(statics);
  }

  subscribe(key: RevisionKey, onChange: (endpoints: string[], detail?: EndpointDetail) => void): () => void {
    const t = this.targets.get(idOf(key));
    if (!t) return this.#static.subscribe(key, onChange);
    let called = false;
    let endpoints: string[] = [];
    const detail: EndpointDetail = { clusterIP: undefined, notReady: [] };
    const stopPods = this.hub.subscribePods(t, (pods) => {
      called = true;
      const live = pods.filter((p) => !p.terminating);
      endpoints = live.map((p) => p.address);
      detail.notReady = live.filter((p) => !p.ready).map((p) => p.address);
      onChange(endpoints, { ...detail });
    });
    // The port's contract: a first call at once, even before the first list answered.
    if (!called) onChange([], { ...detail });
    const stopService = this.follow(t, (clusterIP) => {
      if (clusterIP === detail.clusterIP) return;
      detail.clusterIP = clusterIP;
      onChange(endpoints, { ...detail });
    });
    return () => {
      stopPods();
      stopService();
    };
  }
}
