/** Shared by the k8s-*.test.ts suites: rendering configs and reading the YAML back. */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseConfig, type ThawConfig } from "@thaw/config";
import { parseAllDocuments } from "yaml";
import { resolveServices } from "../../src/config-check.js";
import { DEFAULT_RENDER_OPTIONS } from "../../src/k8s/options.js";
import { renderKubernetes } from "../../src/k8s/render.js";

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
export const INFRA = join(ROOT, "infra/kubernetes");
export const EXAMPLE = join(ROOT, "examples/hello/thaw.k8s.yaml");

export type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

/** Test helper. */
export function objectsOf(text: string): Obj[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
}

/** Test helper. */
export function render(config: unknown, text = "services: []\n") {
  const parsed = parseConfig(config);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const resolved = resolveServices(parsed.value);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const r = renderKubernetes(parsed.value as ThawConfig, resolved.value, text, DEFAULT_RENDER_OPTIONS);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.files;
}

/** Test helper. */
export function allObjects(files: Map<string, string>): Obj[] {
  return [...files]
    .filter(
      ([p]) => p.endsWith(".yaml") && !p.endsWith("kustomization.yaml") && !p.endsWith("thaw.config.yaml"),
    )
    .flatMap(([, t]) => objectsOf(t));
}

/** Test helper. */
export function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? listFiles(p) : [p];
  });
}

/** Test helper. */
export function exampleFiles() {
  const text = readFileSync(EXAMPLE, "utf8");
  const parsed = parseConfig(parseAllDocuments(text)[0]?.toJS());
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const resolved = resolveServices(parsed.value);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  const r = renderKubernetes(parsed.value, resolved.value, text, DEFAULT_RENDER_OPTIONS);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.files;
}

/** Test helper. */
export function kubectlKustomize(dir: string): string {
  const v = spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" });
  if (v.error || v.status !== 0) {
    throw new Error(
      "kubectl is not installed: run `bash .ci/run` (it installs Debian's kubernetes-client) or install kubectl 1.27 or newer (kustomize v5)",
    );
  }
  const major = /Kustomize Version: v(\d+)/.exec(v.stdout)?.[1];
  if (!major || Number(major) < 5) {
    throw new Error(
      `kubectl's kustomize is ${major ? `v${major}` : "too old to report its version"}; these kustomizations need v5: install kubectl 1.27 or newer`,
    );
  }
  const r = spawnSync("kubectl", ["kustomize", dir], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed: ${r.stderr}`);
  return r.stdout;
}
