import { KubeConfig } from "@kubernetes/client-node";

/** Where the API server is: a kubeconfig file, a server URL (tests: the emulator), or the pod's own. */
export interface KubeConfigSource {
  /** Path of a kubeconfig file. */
  kubeconfig?: string;
  /** `http(s)://host:port` of an API server, with an optional bearer token (the emulator in tests). */
  server?: string;
  token?: string;
}

/**
 * Builds a KubeConfig: `server` first, then `kubeconfig`, else the client's default: `$KUBECONFIG`,
 * `~/.kube/config`, or in a pod its ServiceAccount token and `KUBERNETES_SERVICE_HOST`.
 */
export function kubeConfigFor(source: KubeConfigSource = {}): KubeConfig {
  const kc = new KubeConfig();
  if (source.server) {
    kc.loadFromOptions({
      // Plain http has no certificate to verify; the client refuses http unless told so.
      clusters: [{ name: "thaw", server: source.server, skipTLSVerify: source.server.startsWith("http:") }],
      users: [{ name: "thaw", ...(source.token ? { token: source.token } : {}) }],
      contexts: [{ name: "thaw", cluster: "thaw", user: "thaw" }],
      currentContext: "thaw",
    });
  } else if (source.kubeconfig) kc.loadFromFile(source.kubeconfig);
  else kc.loadFromDefault();
  return kc;
}
