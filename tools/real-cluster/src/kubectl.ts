import { spawn } from "node:child_process";
import { k8sBinaries } from "./k8s-binaries.js";

/** What one kubectl run printed and how it ended. */
export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the kubectl built with the cluster (the machine's own may be too old for current kustomize) against
 * `kubeconfig`; killed after `timeoutMs` (default 60 s). Never throws on a non-zero exit: tests assert on it.
 */
export function kubectl(
  kubeconfig: string,
  args: string[],
  o: { input?: string; timeoutMs?: number } = {},
): Promise<KubectlResult> {
  const bin = k8sBinaries(["kubectl"]).kubectl;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [`--kubeconfig=${kubeconfig}`, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), o.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(o.input ?? "");
  });
}
