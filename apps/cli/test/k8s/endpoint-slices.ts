import type { EmulatedApiServer } from "@thaw/kubernetes/node/testing";
import type { Pod, PodTemplate } from "./pod-spec.js";

/** What {@link writeSlices} needs: where, the pod template's ports, the Service's ports. */
export interface SliceOptions {
  api: EmulatedApiServer;
  namespace: string;
  template: PodTemplate;
  service: { name: string; ports: { name: string; targetPort: string | number }[] };
  dualStack: boolean;
}

/**
 * The EndpointSlice controller's part: one slice per address family (an IPv6 slice too for a dual-stack
 * Service), every pod with its ready/serving/terminating conditions, the Service's ports resolved
 * through the containers' port names to the ports the pods listen on.
 */
export function writeSlices(
  o: SliceOptions,
  pods: readonly Pod[],
  portOf: (containerPort: number) => number,
): void {
  const all = o.template.containers.flatMap((c) => c.ports ?? []);
  const ports = o.service.ports.map((sp) => {
    const target = all.find((p) => p.name === sp.targetPort || p.containerPort === sp.targetPort);
    return { name: sp.name, port: target ? portOf(target.containerPort) : 0, protocol: "TCP" };
  });
  const families: ["IPv4" | "IPv6", (p: Pod) => string][] = [["IPv4", (p) => p.ip]];
  if (o.dualStack) families.push(["IPv6", (p) => `fd00::${p.ip.split(".").at(-1)}`]);
  for (const [addressType, address] of families) {
    o.api.apply("endpointslices", o.namespace, {
      metadata: {
        name: `${o.service.name}-${addressType.toLowerCase()}`,
        labels: {
          "kubernetes.io/service-name": o.service.name,
          "endpointslice.kubernetes.io/managed-by": "stand-in-kubelet",
        },
      },
      addressType,
      ports,
      endpoints: pods.map((p) => ({
        addresses: [address(p)],
        conditions: { ready: p.ready && !p.terminating, serving: p.ready, terminating: p.terminating },
        targetRef: { kind: "Pod", namespace: o.namespace, name: p.name, uid: p.uid },
      })),
    });
  }
}
