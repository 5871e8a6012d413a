import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Component, startComponent } from "../process.js";
import type { NodeNetwork } from "./netns.js";

/** What kube-proxy needs: its binary, state folder, node and a kubeconfig for user system:kube-proxy. */
export interface KubeProxyOptions {
  bin: string;
  dir: string;
  nodeName: string;
  net: NodeNetwork;
  kubeconfig: string;
}

/**
 * KubeProxyConfiguration: nftables mode, since this host has `nft` but no `iptables` command (only
 * iptables-legacy and -nft under their long names). Every Service packet is masqueraded: pods share one
 * bridge, and a reply from a backend on it would otherwise skip the un-DNAT and reach its client from
 * the wrong address. The conntrack sysctls are left alone (0): some are host-wide, and the host is shared.
 */
export function kubeProxyConfig(o: KubeProxyOptions): string {
  const c = {
    apiVersion: "kubeproxy.config.k8s.io/v1alpha1",
    kind: "KubeProxyConfiguration",
    clientConnection: { kubeconfig: o.kubeconfig },
    mode: "nftables",
    hostnameOverride: o.nodeName,
    bindAddress: o.net.nodeIp,
    clusterCIDR: o.net.podCidr,
    healthzBindAddress: `${o.net.nodeIp}:10256`,
    metricsBindAddress: "127.0.0.1:10249",
    nftables: { masqueradeAll: true, syncPeriod: "30s", minSyncPeriod: "0s" },
    conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: "0s", tcpCloseWaitTimeout: "0s" },
  };
  return `${JSON.stringify(c, null, 2)}\n`;
}

/** Starts kube-proxy inside the node's namespace; its rules live in that namespace's nftables only. */
export function startKubeProxy(o: KubeProxyOptions): Component {
  const config = join(o.dir, "kube-proxy-config.json");
  writeFileSync(config, kubeProxyConfig(o));
  const [cmd, args] = o.net.inside(o.bin, [`--config=${config}`, "--v=2"]);
  return startComponent("kube-proxy", cmd, args, o.dir);
}
