import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Component, startComponent } from "../process.js";
import { type NodeNetwork, run } from "./netns.js";

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

/**
 * The host-wide sysctls the kubelet insists on (it writes them unless protectKernelDefaults, which
 * instead refuses to start), with the values it wants. A test must not set kernel.panic_on_oops on a
 * shared machine: the kubelet gets its own mount namespace where these files read as it wants.
 */
const KERNEL_TUNABLES: Record<string, number> = {
  "vm/overcommit_memory": 1,
  "vm/panic_on_oom": 0,
  "kernel/panic": 10,
  "kernel/panic_on_oops": 1,
  "kernel/keys/root_maxkeys": 1_000_000,
  "kernel/keys/root_maxbytes": 25_000_000,
};

/**
 * `sh -c` that masks {@link KERNEL_TUNABLES} in a private copy of /proc (bind-mounted files), then
 * execs the kubelet (same PID). Run under `unshare --mount`: the masks never reach the host, while the
 * kubelet's volume mounts do, through the shared bind mount of its root dir made beforehand.
 */
function maskedKubelet(dir: string, bin: string, args: string[]): [string, string[]] {
  const masks = join(dir, "sysctl");
  mkdirSync(masks, { recursive: true });
  const binds = Object.entries(KERNEL_TUNABLES).map(([key, value]) => {
    const file = join(masks, key.replaceAll("/", "."));
    writeFileSync(file, `${value}\n`);
    return `mount --bind ${file} /proc/sys/${key}`;
  });
  const script = ["set -e", "mount --make-rprivate /proc", ...binds, 'exec "$0" "$@"'].join("; ");
  return ["unshare", ["--mount", "--propagation", "unchanged", "--", "sh", "-c", script, bin, ...args]];
}

/**
 * Starts the kubelet inside the node's namespace (nsenter: /sys and the cgroup mounts stay the host's),
 * in a mount namespace of its own whose only difference is {@link KERNEL_TUNABLES}. Its root dir is
 * bind-mounted on itself and made shared first, so what it mounts there (volumes) containerd sees.
 */
export function startKubelet(o: KubeletOptions): Component {
  const root = join(o.dir, "root");
  mkdirSync(join(o.dir, "pod-logs"), { recursive: true });
  mkdirSync(root, { recursive: true });
  run("mount", ["--bind", root, root]);
  run("mount", ["--make-rshared", root]);
  writeFileSync(join(o.dir, "resolv.conf"), "");
  const config = join(o.dir, "kubelet-config.json");
  writeFileSync(config, kubeletConfig(o));
  const [cmd, args] = o.net.inside(
    ...maskedKubelet(o.dir, o.bin, [
      `--config=${config}`,
      `--kubeconfig=${o.kubeconfig}`,
      `--root-dir=${root}`,
      `--cert-dir=${join(o.dir, "pki")}`,
      `--hostname-override=${o.nodeName}`,
      `--node-ip=${o.net.nodeIp}`,
      "--v=2",
    ]),
  );
  return startComponent("kubelet", cmd, args, o.dir);
}
