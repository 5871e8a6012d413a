/**
 * The platform's rendered args and env (src/k8s/components.ts) are ones the bins accept: each component is
 * started from this repository's dist/ with its container's args, the config the ConfigMap holds, the
 * Secret's keys as values, and its listen address moved to loopback port 0. The Kubernetes API is an
 * unreachable loopback address in a kubeconfig: no cluster or API server runs here.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CONFIG_PATH } from "../src/k8s/options.js";
import { type LoggedChild, startNode } from "./k8s/child.js";
import { allObjects, exampleFiles, type Obj, ROOT } from "./k8s/fixtures.js";

type EnvVar = {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { key: string } };
};

const work = mkdtempSync(join(tmpdir(), "thaw-platform-"));
const kubeconfig = join(work, "kubeconfig");
writeFileSync(
  kubeconfig,
  [
    "apiVersion: v1",
    "kind: Config",
    "clusters: [{ name: c, cluster: { server: 'https://127.0.0.1:9', insecure-skip-tls-verify: true } }]",
    "users: [{ name: u, user: { token: t } }]",
    "contexts: [{ name: x, context: { cluster: c, user: u, namespace: thaw-system } }]",
    "current-context: x",
  ].join("\n"),
);
const running: LoggedChild[] = [];
afterAll(() => {
  for (const r of running) r.child.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
});

const SECRET: Record<string, string> = {
  token: "0123456789abcdef0123456789abcdef",
  "route-token": "route-secret",
};
const FIELDS: Record<string, string> = {
  "metadata.name": "pod-0",
  "metadata.namespace": "thaw-system",
  "status.podIP": "127.0.0.1",
};

function container(name: string): { args: string[]; env: Record<string, string> } {
  const dep = allObjects(exampleFiles()).find(
    (o) => o.kind === "Deployment" && o.metadata.name === name,
  ) as Obj;
  const c = (dep.spec as { template: { spec: { containers: { args: string[]; env: EnvVar[] }[] } } }).template
    .spec.containers[0] as { args: string[]; env: EnvVar[] };
  const env: Record<string, string> = { KUBECONFIG: kubeconfig };
  for (const e of c.env) {
    const f = e.valueFrom?.fieldRef?.fieldPath;
    const k = e.valueFrom?.secretKeyRef?.key;
    env[e.name] = f ? (FIELDS[f] as string) : k ? (SECRET[k] as string) : (e.value ?? "");
  }
  const config = join(ROOT, "infra/kubernetes/base/thaw.config.yaml");
  const args = c.args.map((a) => (a === CONFIG_PATH ? config : a.replace(/^0\.0\.0\.0:\d+$/, "127.0.0.1:0")));
  return { args, env };
}

describe("the rendered platform args and env start the bins (loopback, unreachable API server)", () => {
  it("thaw-autoscaler", async () => {
    const { args, env } = container("thaw-autoscaler");
    expect(env.THAW_LEADER_ELECTION).toBe("on");
    const run = startNode([join(ROOT, "apps/autoscaler/dist/main.js"), ...args], ROOT, env);
    running.push(run);
    await run.waitFor(/thaw-autoscaler listening/);
  });

  it("thaw-ingress-hook", async () => {
    const { args, env } = container("thaw-ingress-hook");
    expect(args).toContain("--reject-internal-headers");
    const run = startNode([join(ROOT, "apps/ingress-hook/dist/node/cli.js"), ...args], ROOT, env);
    running.push(run);
    await run.waitFor(/thaw-ingress-hook listening on/);
  });

  it("thaw-activator", async () => {
    const { args, env } = container("thaw-activator");
    expect(args).toContain("--config");
    expect(env.THAW_ACTIVATOR_SERVICE).toBe("thaw-activator:http");
    expect(env.THAW_AUTOSCALER_SERVICE).toBe("thaw-autoscaler:http");
    const port = args.indexOf("--port");
    args[port + 1] = "0";
    const run = startNode(
      [join(ROOT, "apps/activator/dist/node/main.js"), ...args, "--host", "127.0.0.1"],
      ROOT,
      env,
    );
    running.push(run);
    await run.waitFor(/"listening"/);
  });
});
