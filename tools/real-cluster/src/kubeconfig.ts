import { writeFileSync } from "node:fs";

/** How a kubeconfig authenticates: a client certificate or a bearer token. */
export type KubeconfigUser = { cert: string; key: string } | { token: string };

/** Writes a one-context kubeconfig for `server`, trusting only the cluster CA at `caPath`. */
export function writeKubeconfig(path: string, server: string, caPath: string, user: KubeconfigUser): string {
  const auth =
    "token" in user
      ? `token: ${user.token}`
      : `client-certificate: ${user.cert}\n    client-key: ${user.key}`;
  writeFileSync(
    path,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: thaw-real",
      "  cluster:",
      `    server: ${server}`,
      `    certificate-authority: ${caPath}`,
      "users:",
      "- name: user",
      "  user:",
      `    ${auth}`,
      "contexts:",
      "- name: thaw-real",
      "  context: {cluster: thaw-real, user: user}",
      "current-context: thaw-real",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  return path;
}
