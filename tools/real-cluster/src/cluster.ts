#!/usr/bin/env node
// `npm run cluster`: a real control plane for a person, until Ctrl-C. `--bind <address>` moves the API
// server off loopback (the address must exist on this host); `--keep` keeps the state folder.
import { readCommandLine } from "@thaw/command-line/node";
import { startControlPlane } from "./control-plane.js";
import { CLUSTER_COMMAND } from "./dev-commands.js";
import { K8S_VERSION, k8sBinaries } from "./k8s-binaries.js";
import { runNodeCluster } from "./node/cluster-cli.js";

const { flags } = readCommandLine(CLUSTER_COMMAND, process.argv.slice(2), import.meta.url);
const keep = flags["--keep"] === "true";
// `--node`: also a real node (containerd, kubelet, kube-proxy, CoreDNS); never returns.
if (flags["--node"] === "true") {
  if (flags["--bind"] !== undefined) {
    console.error(
      "cluster: --bind works only without --node (with a node the API server listens on the node's network)",
    );
    process.exit(2);
  }
  await runNodeCluster({ keep });
}
const t0 = Date.now();
console.log(
  `cluster: starting etcd, kube-apiserver, kube-controller-manager, kube-scheduler ${K8S_VERSION} ...`,
);
try {
  const cp = await startControlPlane({
    ...(flags["--bind"] ? { bindAddress: flags["--bind"] } : {}),
    keep,
  });
  const kubectl = k8sBinaries(["kubectl"]).kubectl;
  console.log(`cluster: ready in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${cp.server}`);
  for (const [name, c] of cp.components)
    console.log(`cluster:   ${name.padEnd(24)} pid ${c.pid}  log ${c.logPath}`);
  console.log("cluster: in another shell:");
  console.log(`  export KUBECONFIG=${cp.kubeconfigPath}`);
  console.log(`  alias kubectl=${kubectl}`);
  console.log("  kubectl get --raw /readyz?verbose; kubectl get namespaces");
  console.log(
    `cluster: Ctrl-C stops every process${keep ? ` and keeps ${cp.dir}` : ` and removes ${cp.dir}`}`,
  );
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    console.log("cluster: stopping ...");
    await cp.stop();
    console.log("cluster: stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown());
  process.on("SIGTERM", () => void shutdown());
  // A component that dies takes the cluster down with it, loudly.
  for (const c of cp.components.values()) {
    void c.exited.then(async (code) => {
      if (stopping) return;
      console.error(`cluster: ${c.name} exited (${code}); last lines of ${c.logPath}:\n${c.tail(30)}`);
      await shutdown();
    });
  }
} catch (e) {
  console.error(`cluster: ${(e as Error).message}`);
  process.exitCode = 1;
}
