import { K8S_VERSION, k8sBinaries } from "../k8s-binaries.js";
import { startNodeCluster } from "./node-cluster.js";

/**
 * `npm run cluster -- --node`: a control plane and one real node (containerd, kubelet, kube-proxy,
 * CoreDNS in a network namespace of their own) for a person, until Ctrl-C, which stops every process
 * by PID, unmounts, and removes the namespace and the state folder (kept with `--keep`). Never returns:
 * the process ends with the cluster (exit 1 when it fails to start or a component dies).
 */
export async function runNodeCluster({ keep }: { keep: boolean }): Promise<never> {
  const t0 = Date.now();
  console.log(`cluster: starting a control plane and a node, Kubernetes ${K8S_VERSION} ...`);
  const c = await startNodeCluster({ keep }).catch((e: Error) => {
    console.error(`cluster: ${e.message}`);
    process.exit(1);
  });
  const cp = c.controlPlane;
  const kubectl = k8sBinaries(["kubectl"]).kubectl;
  console.log(`cluster: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${cp.server}`);
  const ms = { ...c.startMs, ...c.node.startMs };
  console.log(
    `cluster: start ms ${Object.entries(ms)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}`,
  );
  for (const [name, p] of [...cp.components, ...c.node.components]) {
    console.log(`cluster:   ${name.padEnd(24)} pid ${p.pid}  log ${p.logPath}`);
  }
  console.log(
    `cluster: node ${c.node.name} in network namespace ${c.net.name}: node ${c.net.nodeIp}, pods ${c.net.podCidr}`,
  );
  console.log("cluster: images go in with:");
  console.log(`  ctr --address ${c.node.containerd.socket} -n k8s.io images import <archive.tar>`);
  console.log("cluster: in another shell:");
  console.log(`  export KUBECONFIG=${cp.kubeconfigPath}`);
  console.log(`  alias kubectl=${kubectl}`);
  console.log("  kubectl get nodes -o wide; kubectl get pods -A -o wide");
  console.log(
    `  nsenter --net=${c.net.nsPath} curl http://<ClusterIP>/   # Services answer inside the namespace`,
  );
  console.log(
    `cluster: Ctrl-C stops every process${keep ? ` and keeps ${cp.dir}` : ` and removes ${cp.dir}`}`,
  );
  let stopping = false;
  const shutdown = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log("cluster: stopping ...");
    await c.stop();
    console.log("cluster: stopped");
    process.exit(code);
  };
  process.on("SIGINT", () => void shutdown(0));
  process.on("SIGTERM", () => void shutdown(0));
  // A component that dies takes the cluster down with it, loudly.
  for (const p of [...cp.components.values(), ...c.node.components.values()]) {
    void p.exited.then(async (code) => {
      if (stopping) return;
      console.error(`cluster: ${p.name} exited (${code}); last lines of ${p.logPath}:\n${p.tail(30)}`);
      await shutdown(1);
    });
  }
  // The children keep the event loop alive; shutdown() ends the process.
  return new Promise<never>(() => {});
}
