/** The command lines of this package's bins (`npm run cluster`, `k8s:build`, `coredns:build`): what `--help` prints and the parser accepts. */
import type { Command } from "@thaw/command-line";

const CACHE_ENV = {
  name: "XDG_CACHE_HOME",
  default: "~/.cache",
  help: "where built binaries are kept, under thaw/ (one folder per version and content)",
};

export const CLUSTER_COMMAND: Command = {
  name: "npm run cluster --",
  summary:
    "a real Kubernetes control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler) on this host until Ctrl-C, with --node also one real node (containerd, kubelet, kube-proxy, CoreDNS in a network namespace of its own; needs root); Ctrl-C stops every process by PID and removes the state folder",
  flags: [
    { name: "--node", help: "also start a real node (root only)" },
    {
      name: "--bind",
      value: "ADDRESS",
      default: "127.0.0.1",
      help: "the API server's address, one this host has (without --node)",
    },
    { name: "--keep", help: "keep the state folder (certificates, logs, etcd data) after Ctrl-C" },
  ],
  env: [CACHE_ENV],
  more: "Needs the binaries of `npm run k8s:build` (and `npm run coredns:build` with --node). docs/kubernetes.md, sections 8 and 9.",
};

export const K8S_BUILD_COMMAND: Command = {
  name: "npm run k8s:build --",
  summary:
    "builds kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kubelet and kube-proxy from the pinned Kubernetes Go module (tools/real-cluster/k8s), or reuses them when the version and content are unchanged",
  flags: [],
  env: [CACHE_ENV],
};

export const COREDNS_BUILD_COMMAND: Command = {
  name: "npm run coredns:build --",
  summary:
    "builds CoreDNS (kubernetes, cache, health and ready plugins) from its pinned Go module for the real node's cluster names, or reuses it",
  flags: [],
  env: [CACHE_ENV],
};
