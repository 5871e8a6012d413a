/** The pod spec types the stand-in kubelet reads, and kubelet's env resolution (test/k8s/kubelet.ts). */

import type { LoggedChild } from "./child.js";

/** A containerPort. */
export type Port = { name?: string; containerPort: number };
/** An env entry of a container spec. */
export type EnvVar = { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } };
/** An httpGet probe or handler. */
export type HttpGet = {
  path?: string;
  port: number | string;
  httpHeaders?: { name: string; value: string }[];
};
/** The parts of a container spec the stand-in reads. */
export type Container = {
  name: string;
  image: string;
  ports?: Port[];
  env?: EnvVar[];
  readinessProbe?: { httpGet?: HttpGet; failureThreshold?: number };
  lifecycle?: { preStop?: { httpGet?: HttpGet } };
};
/** The parts of a rendered pod template the stand-in reads. */
export type PodTemplate = { terminationGracePeriodSeconds?: number; containers: Container[] };

/** One running pod. */
export interface Pod {
  name: string;
  uid: string;
  ip: string;
  ports: Map<number, number>;
  procs: Map<string, LoggedChild>;
  ready: boolean;
  terminating: boolean;
  failures: number;
  timer?: NodeJS.Timeout;
}

/**
 * A container's env as kubelet resolves it: values, and fieldRefs from the pod; a value naming a
 * containerPort of the pod, and the port in SERVING_READINESS_PROBE, become the mapped port.
 */
export function podEnv(c: Container, pod: Pod, namespace: string): Record<string, string> {
  const fields: Record<string, string> = {
    "metadata.name": pod.name,
    "metadata.namespace": namespace,
    "status.podIP": pod.ip,
    "status.hostIP": "127.0.0.1",
  };
  const env: Record<string, string> = {};
  for (const e of c.env ?? []) {
    const f = e.valueFrom?.fieldRef?.fieldPath;
    let v = f ? (fields[f] ?? "") : (e.value ?? "");
    const mapped = /^\d+$/.test(v) ? pod.ports.get(Number(v)) : undefined;
    if (mapped !== undefined) v = String(mapped);
    if (e.name === "SERVING_READINESS_PROBE" && v) {
      const probe = JSON.parse(v) as { httpGet?: { port?: number } };
      const port = probe.httpGet?.port;
      if (probe.httpGet && port !== undefined) probe.httpGet.port = pod.ports.get(port) ?? port;
      v = JSON.stringify(probe);
    }
    env[e.name] = v;
  }
  return env;
}
