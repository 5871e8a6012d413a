import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Component, startComponent } from "../process.js";
import type { NodeNetwork } from "./netns.js";

/** What the kubelet needs to know about the node it runs. */
export interface KubeletOptions {
  /** The kubelet binary (k8sBinaries(["kubelet"]).kubelet). */
  bin: string;
  /** State folder: root dir, certificates, pod logs, config files. */
  dir: string;
  nodeName: string;
  net: NodeNetwork;
  /** Kubeconfig with a client certificate CN=system:node:<nodeName>, O=system:nodes. */
  kubeconfig: string;
  /** CA that signs API clients (the cluster CA): the kubelet's own API trusts only it. */
  clientCaFile: string;
  /** containerd's CRI endpoint, `unix://...`. */
  runtimeEndpoint: string;
  /** The DNS server pods are told to use (CoreDNS in the node's namespace). */
  clusterDns: string;
  /** Cgroup every pod goes under (`/thaw-<id>`), so this node's pods never mix with another's. */
  cgroupRoot: string;
}

/**
 * The KubeletConfiguration for this host. cgroup v1 hybrid and kept (failCgroupV1 off); cgroupfs, as
 * containerd's runc is set up; no swap check; evictions only near a full disk, since the test machine's
 * disk and memory are shared with other jobs; no static pods; the read-only port closed.
 */
export function kubeletConfig(o: KubeletOptions): string {
  const c = {
    apiVersion: "kubelet.config.k8s.io/v1beta1",
    kind: "KubeletConfiguration",
    address: o.net.nodeIp,
    port: 10250,
    readOnlyPort: 0,
    healthzBindAddress: "127.0.0.1",
    healthzPort: 10248,
    authentication: {
      anonymous: { enabled: false },
      webhook: { enabled: true },
      x509: { clientCAFile: o.clientCaFile },
    },
    authorization: { mode: "Webhook" },
    cgroupDriver: "cgroupfs",
    cgroupRoot: o.cgroupRoot,
    failCgroupV1: false,
    failSwapOn: false,
    containerRuntimeEndpoint: o.runtimeEndpoint,
    clusterDNS: [o.clusterDns],
    clusterDomain: "cluster.local",
    // The host's resolv.conf would hand pods its search domains and outside name servers.
    resolvConf: join(o.dir, "resolv.conf"),
    podLogsDir: join(o.dir, "pod-logs"),
    serializeImagePulls: false,
    evictionHard: { "memory.available": "100Mi", "nodefs.available": "2%", "imagefs.available": "2%" },
    imageGCHighThresholdPercent: 100,
    imageGCLowThresholdPercent: 99,
    // The pod status reaches the API sooner: cold-start phases are measured from it.
    nodeStatusUpdateFrequency: "4s",
    rotateCertificates: false,
    serverTLSBootstrap: false,
  };
  return `${JSON.stringify(c, null, 2)}\n`;
}

/** Starts the kubelet inside the node's namespace (nsenter: /sys and the cgroup mounts stay the host's). */
export function startKubelet(o: KubeletOptions): Component {
  const root = join(o.dir, "root");
  mkdirSync(join(o.dir, "pod-logs"), { recursive: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(o.dir, "resolv.conf"), "");
  const config = join(o.dir, "kubelet-config.json");
  writeFileSync(config, kubeletConfig(o));
  const [cmd, args] = o.net.inside(o.bin, [
    `--config=${config}`,
    `--kubeconfig=${o.kubeconfig}`,
    `--root-dir=${root}`,
    `--cert-dir=${join(o.dir, "pki")}`,
    `--hostname-override=${o.nodeName}`,
    `--node-ip=${o.net.nodeIp}`,
    "--v=2",
  ]);
  return startComponent("kubelet", cmd, args, o.dir);
}
