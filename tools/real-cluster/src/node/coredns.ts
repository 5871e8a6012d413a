import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { kubectl } from "../kubectl.js";
import { type Component, startComponent } from "../process.js";
import type { NodeNetwork } from "./netns.js";

/** The user CoreDNS authenticates as (client certificate), and what RBAC lets it read. */
export const COREDNS_USER = "thaw:coredns";

const RBAC = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "${COREDNS_USER}"}
rules:
- apiGroups: [""]
  resources: [services, namespaces, pods]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "${COREDNS_USER}"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "${COREDNS_USER}"}
subjects:
- {apiGroup: rbac.authorization.k8s.io, kind: User, name: "${COREDNS_USER}"}
`;

/** Lets {@link COREDNS_USER} list and watch what cluster names are made of. */
export async function grantCoredns(adminKubeconfig: string): Promise<void> {
  const r = await kubectl(adminKubeconfig, ["apply", "-f", "-"], { input: RBAC });
  if (r.code !== 0) throw new Error(`kubectl apply of CoreDNS's RBAC failed: ${r.stderr.trim()}`);
}

/**
 * The Corefile: cluster names only (`<svc>.<ns>.svc.cluster.local`, pod A records, reverse lookups),
 * answered on the node's address port 53; no forwarder, since nothing here may reach outside names.
 * /ready (8181) answers 200 once the kubernetes plugin has synced with the API server.
 */
export function corefile(net: NodeNetwork, kubeconfig: string): string {
  return `.:53 {
    bind ${net.nodeIp}
    errors
    health ${net.nodeIp}:8080
    ready ${net.nodeIp}:8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig ${kubeconfig} thaw-real
        pods insecure
        ttl 5
    }
    cache 5
    loadbalance
}
`;
}

/** Starts CoreDNS as a process inside the node's namespace (pods reach it at the node IP). */
export function startCoredns(bin: string, dir: string, net: NodeNetwork, kubeconfig: string): Component {
  const path = join(dir, "Corefile");
  writeFileSync(path, corefile(net, kubeconfig));
  const [cmd, args] = net.inside(bin, ["-conf", path]);
  return startComponent("coredns", cmd, args, dir);
}
