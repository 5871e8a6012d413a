import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import type { ControlPlane } from "../../src/control-plane.js";
import { api } from "../../src/node/api.js";

type ReplicaSet = {
  metadata: { labels?: Record<string, string>; annotations?: Record<string, string> };
};

/**
 * Changes hello's pod template in the rendered `services/apps-hello.yaml` the way a new version of the app
 * would (an annotation, as `kubectl rollout restart` sets), so applying the render again rolls hello out.
 */
export function changeHelloTemplate(render: string, value: string): void {
  const file = join(render, "services/apps-hello.yaml");
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  const deployment = docs.find(
    (d) => d.get("kind") === "Deployment" && d.getIn(["metadata", "name"]) === "hello",
  );
  if (!deployment) throw new Error(`${file} has no Deployment hello`);
  deployment.setIn(
    ["spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/restartedAt"],
    value,
  );
  writeFileSync(file, docs.map((d) => d.toString()).join("---\n"));
}

/** The `pod-template-hash` of hello's newest ReplicaSet (its pods are named `hello-<hash>-<suffix>`). */
export async function newestHelloHash(cp: ControlPlane): Promise<string> {
  const q = encodeURIComponent("app.kubernetes.io/name=hello");
  const list = await api<{ items: ReplicaSet[] }>(
    cp,
    "GET",
    `/apis/apps/v1/namespaces/apps/replicasets?labelSelector=${q}`,
  );
  const revision = (rs: ReplicaSet) =>
    Number(rs.metadata.annotations?.["deployment.kubernetes.io/revision"] ?? 0);
  const newest = (list?.items ?? []).sort((a, b) => revision(b) - revision(a))[0];
  const hash = newest?.metadata.labels?.["pod-template-hash"];
  if (!hash) throw new Error("hello has no ReplicaSet with a pod-template-hash");
  return hash;
}
