import type { ControlPlane } from "../control-plane.js";
import { watch } from "./api.js";

/** Cold-start phases of one pod: milliseconds from the decision (t0) to each first sight. */
export interface PodPhases {
  pod: string;
  /** The Pod object exists (the ReplicaSet controller, or the test, made it). */
  created: number;
  /** The scheduler bound it to the node (spec.nodeName set). */
  scheduled: number;
  /** The kubelet reported the sandbox up with its network (PodReadyToStartContainers). */
  sandbox: number;
  /** Every container running. */
  started: number;
  /** The Ready condition: the readiness probes passed. */
  ready: number;
  /** The Service's EndpointSlice lists the pod's IP, ready or not (a router that probes may start now). */
  listed: number;
  /** The Service's EndpointSlice lists the pod's IP as ready. */
  endpoints: number;
}

interface PodLike {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { nodeName?: string };
  status?: {
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: { state?: { running?: unknown } }[];
  };
}
interface SliceLike {
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[];
}

const cond = (p: PodLike, type: string) =>
  p.status?.conditions?.some((c) => c.type === type && c.status === "True");

/**
 * Watches the pods matching `labelSelector` in `namespace`, and the EndpointSlices of `service`, from
 * the moment of the call; times each phase of the first pod that appears, by the test's own clock when
 * the API server tells of it (watch events, milliseconds apart: the objects' own timestamps are whole
 * seconds). `done` resolves when the pod is in the Service's endpoints; `opened` once both watches are open.
 */
export function watchPodPhases(
  cp: ControlPlane,
  namespace: string,
  labelSelector: string,
  service: string,
  t0 = Date.now(),
): { done: Promise<PodPhases>; opened: Promise<void>; stop(): void } {
  const seen: Partial<PodPhases> = {};
  const listedIps = new Set<string>();
  const readyIps = new Set<string>();
  let podIp: string | undefined;
  let resolve!: (p: PodPhases) => void;
  let reject!: (e: Error) => void;
  const done = new Promise<PodPhases>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const mark = (k: Exclude<keyof PodPhases, "pod">, ok: boolean | undefined) => {
    if (ok && seen[k] === undefined) seen[k] = Date.now() - t0;
  };
  const check = () => {
    if (podIp && listedIps.has(podIp)) mark("listed", true);
    if (podIp && readyIps.has(podIp)) mark("endpoints", true);
    if (seen.endpoints !== undefined && seen.ready !== undefined) resolve(seen as PodPhases);
  };
  const q = encodeURIComponent;
  const pods = watch<PodLike>(
    cp,
    `/api/v1/namespaces/${namespace}/pods?labelSelector=${q(labelSelector)}`,
    ({ type, object: p }) => {
      if (type === "DELETED" || type === "ERROR") return;
      // A pod on its way out (scale-down draining) is not the one starting.
      if (seen.pod === undefined && p.metadata.deletionTimestamp) return;
      seen.pod ??= p.metadata.name;
      if (p.metadata.name !== seen.pod) return;
      mark("created", true);
      mark("scheduled", Boolean(p.spec?.nodeName));
      mark("sandbox", cond(p, "PodReadyToStartContainers"));
      const cs = p.status?.containerStatuses ?? [];
      mark("started", cs.length > 0 && cs.every((c) => c.state?.running));
      mark("ready", cond(p, "Ready"));
      podIp = p.status?.podIP ?? podIp;
      check();
    },
    reject,
  );
  const slices = watch<SliceLike>(
    cp,
    `/apis/discovery.k8s.io/v1/namespaces/${namespace}/endpointslices?labelSelector=${q(`kubernetes.io/service-name=${service}`)}`,
    ({ object: s }) => {
      for (const e of s.endpoints ?? [])
        for (const a of e.addresses) {
          listedIps.add(a);
          if (e.conditions?.ready) readyIps.add(a);
        }
      check();
    },
    reject,
  );
  return {
    done,
    opened: Promise.all([pods.opened, slices.opened]).then(() => {}),
    stop() {
      pods.stop();
      slices.stop();
    },
  };
}
