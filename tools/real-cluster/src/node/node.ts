import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ControlPlane } from "../control-plane.js";
import { k8sBinaries } from "../k8s-binaries.js";
import type { Component } from "../process.js";
import { waitReady } from "../ready.js";
import { api } from "./api.js";
import { writePodNetwork } from "./cni.js";
import { type Containerd, startContainerd } from "./containerd.js";
import { COREDNS_USER, grantCoredns, startCoredns } from "./coredns.js";
import { corednsBinary } from "./coredns-binary.js";
import { startKubeProxy } from "./kube-proxy.js";
import { startKubelet } from "./kubelet.js";
import { killCgroupTree, makeCgroup, unmountUnder } from "./leftovers.js";
import type { NodeNetwork } from "./netns.js";

/** Options of {@link startNode}. */
export interface NodeOptions {
  /** The control plane the node joins; its API server must listen on `net.hostIp`. */
  controlPlane: ControlPlane;
  /** The node's network namespace (createNodeNetwork()); the caller removes it after the control plane stops. */
  net: NodeNetwork;
  /** State folder (default `<controlPlane.dir>/node`). */
  dir?: string;
  /** The control plane's Service range (default 10.96.0.0/16), routed inside the node so it reaches ClusterIPs too. */
  serviceCidr?: string;
  /** Keep the state folder (logs, configs) after stop(). */
  keep?: boolean;
  /** Bound on the whole start (default 120 s). */
  timeoutMs?: number;
}

/** A running node: containerd, kubelet, kube-proxy and CoreDNS inside one network namespace. */
export interface Node {
  readonly name: string;
  readonly net: NodeNetwork;
  readonly dir: string;
  /** The address pods resolve cluster names at. */
  readonly dnsIp: string;
  readonly containerd: Containerd;
  /** The running processes by name, each stopped by PID. */
  readonly components: Map<string, Component>;
  /** Milliseconds from the start call to each component ready, in the order they became so. */
  readonly startMs: Record<string, number>;
  /** Stops the node's processes, kills what its pods left, unmounts, removes the state. Idempotent. */
  stop(): Promise<void>;
}

type NodeStatus = { status?: { conditions?: { type: string; status: string }[] } };

/**
 * Joins a real node to `controlPlane`: containerd with the CRI plugin and a bridge pod network, the
 * kubelet (client certificate system:node:<name>), kube-proxy (nftables) and CoreDNS, all inside
 * `net`. Resolves once the Node is Ready and CoreDNS has synced. On any failure every process it
 * started is stopped before the error (with the failing component's last log lines) is thrown.
 */
export async function startNode(o: NodeOptions): Promise<Node> {
  const t0 = Date.now();
  const deadline = t0 + (o.timeoutMs ?? 120_000);
  // Every missing piece is named before anything starts.
  const bin = k8sBinaries(["kubelet", "kube-proxy"]);
  const coredns = corednsBinary();
  const cp = o.controlPlane;
  const { net } = o;
  const id = net.name.replace(/^thaw-/, "");
  const name = `thaw-node-${id}`;
  const dir = o.dir ?? join(cp.dir, "node");
  const cgroupRoot = `/thaw-${id}`;
  mkdirSync(dir, { recursive: true });
  const components = new Map<string, Component>();
  const startMs: Record<string, number> = {};
  let containerd: Containerd | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all([...components.entries()].filter(([n]) => n !== "containerd").map(([, c]) => c.stop()));
    await containerd?.stop();
    // Whatever a pod still runs lives under the node's cgroup: nothing of it survives the node.
    killCgroupTree(cgroupRoot);
    unmountUnder(dir);
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Pods reach ClusterIPs by their default route; the node's own processes (CoreDNS, a person's curl)
    // need a route to send from before kube-proxy's output DNAT. Through `lo`, so an address no Service
    // holds goes nowhere, instead of out of the namespace.
    net.exec("ip", ["route", "replace", o.serviceCidr ?? "10.96.0.0/16", "dev", "lo", "src", net.nodeIp]);
    containerd = await startContainerd(join(dir, "containerd"), net);
    components.set("containerd", containerd.component);
    startMs.containerd = Date.now() - t0;
    writePodNetwork(containerd.cniConfDir, net.podCidr, join(dir, "cni-ipam"));

    makeCgroup(cgroupRoot);
    const kubelet = startKubelet({
      bin: bin.kubelet,
      dir: join(dir, "kubelet"),
      nodeName: name,
      net,
      kubeconfig: cp.kubeconfigFor("kubelet", `system:node:${name}`, ["system:nodes"]),
      clientCaFile: cp.caPath,
      runtimeEndpoint: containerd.endpoint,
      clusterDns: net.nodeIp,
      cgroupRoot,
    });
    components.set("kubelet", kubelet);
    mkdirSync(join(dir, "kube-proxy"), { recursive: true });
    const proxy = startKubeProxy({
      bin: bin["kube-proxy"],
      dir: join(dir, "kube-proxy"),
      nodeName: name,
      net,
      kubeconfig: cp.kubeconfigFor("kube-proxy", "system:kube-proxy"),
    });
    components.set("kube-proxy", proxy);
    await grantCoredns(cp.kubeconfigPath);
    mkdirSync(join(dir, "coredns"), { recursive: true });
    const dns = startCoredns(coredns, join(dir, "coredns"), net, cp.kubeconfigFor("coredns", COREDNS_USER));
    components.set("coredns", dns);

    const nodeReady = async () => {
      const n = await api<NodeStatus>(cp, "GET", `/api/v1/nodes/${name}`);
      return n?.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
    };
    const dnsReady = async () => (await fetch(`http://${net.nodeIp}:8181/ready`)).ok;
    const proxyHealthy = async () => (await fetch(`http://${net.nodeIp}:10256/healthz`)).ok;
    await Promise.all([
      waitReady(kubelet, "registered and Ready", nodeReady, deadline).then(() => {
        startMs.kubelet = Date.now() - t0;
      }),
      waitReady(dns, "synced with the API server (/ready)", dnsReady, deadline).then(() => {
        startMs.coredns = Date.now() - t0;
      }),
      waitReady(proxy, "healthy (/healthz)", proxyHealthy, deadline).then(() => {
        startMs["kube-proxy"] = Date.now() - t0;
      }),
    ]);
    return { name, net, dir, dnsIp: net.nodeIp, containerd, components, startMs, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
