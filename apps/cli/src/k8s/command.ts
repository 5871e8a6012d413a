import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { formatIssues } from "@thaw/config";
import { loadAndCheck } from "../validate.js";
import { renderOptionError } from "./flag-rules.js";
import { DEFAULT_RENDER_OPTIONS, type RenderOptions } from "./options.js";
import { renderKubernetes } from "./render.js";
import { pruneRendered } from "./rendered-list.js";

/** Usage of `thaw k8s render`. */
export const K8S_USAGE = `usage: thaw k8s render [--config thaw.config.yaml] [--out dir]
  [--image-registry ghcr.io/thaw-dev] [--image-tag 0.1.0] [--system-namespace thaw-system]
  [--ingress-class nginx] [--gateway default/eg] [--istio-namespace istio-system]
  [--ingress-namespaces ingress-nginx,envoy-gateway-system,istio-system]`;

/** Parsed arguments of `thaw k8s render`, or the message for a bad one. */
export function parseRenderArgs(
  argv: readonly string[],
):
  | { ok: true; config: string; out: string | undefined; options: RenderOptions }
  | { ok: false; error: string; usage?: boolean } {
  let config = "thaw.config.yaml";
  let out: string | undefined;
  const options: RenderOptions = { ...DEFAULT_RENDER_OPTIONS };
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i] as string;
    const [flag, inline] =
      raw.startsWith("--") && raw.includes("=") ? raw.split(/=(.*)/s, 2) : [raw, undefined];
    const take = (): string | undefined => inline ?? argv[++i];
    const v = take();
    if (v === undefined || v === "") return { ok: false, error: `${flag} needs a value` };
    switch (flag) {
      case "--config":
      case "-c":
        config = v;
        break;
      case "--out":
      case "-o":
        out = v;
        break;
      case "--image-registry":
        options.imageRegistry = v.replace(/\/$/, "");
        break;
      case "--image-tag":
        options.imageTag = v;
        break;
      case "--system-namespace":
        options.systemNamespace = v;
        break;
      case "--ingress-class":
        options.ingressClass = v;
        break;
      case "--istio-namespace":
        options.istioNamespace = v;
        break;
      case "--ingress-namespaces":
        options.ingressNamespaces = v.split(",").map((n) => n.trim());
        break;
      case "--gateway": {
        const [namespace, name, extra] = v.split("/");
        if (!namespace || !name || extra !== undefined) {
          return { ok: false, error: `--gateway must be namespace/name, got ${v}`, usage: false };
        }
        options.gateway = { namespace, name };
        break;
      }
      default:
        return { ok: false, error: `unknown argument ${flag}` };
    }
  }
  const bad = renderOptionError(options);
  if (bad) return { ok: false, error: bad, usage: false };
  return { ok: true, config, out, options };
}

/** `thaw k8s render`: writes the tree under `--out`, or prints every file to stdout; exit code and text. */
export async function k8sRenderCommand(
  argv: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = parseRenderArgs(argv);
  if (!args.ok) {
    // A bad value is one line naming the flag and the rule; an unknown or missing flag adds the usage.
    const usage = args.usage === false ? "" : `${K8S_USAGE}\n`;
    return { code: 2, stdout: "", stderr: `thaw k8s render: ${args.error}\n${usage}` };
  }
  const loaded = await loadAndCheck(args.config);
  if (!loaded.ok) return { code: 1, stdout: "", stderr: `${formatIssues(loaded.issues, args.config)}\n` };
  const text = await readFile(args.config, "utf8");
  const r = renderKubernetes(loaded.config, loaded.services, text, args.options);
  if (!r.ok) return { code: 1, stdout: "", stderr: `${formatIssues(r.issues, args.config)}\n` };
  if (args.out === undefined) {
    const stdout = [...r.files].map(([path, body]) => `# --- ${path}\n${body}`).join("");
    return { code: 0, stdout, stderr: "" };
  }
  const removed = await pruneRendered(args.out, r.files);
  for (const [path, body] of r.files) {
    const target = join(args.out, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, body);
  }
  const pruned = removed.length > 0 ? `; removed ${removed.join(", ")} (no longer rendered)` : "";
  return { code: 0, stdout: `wrote ${r.files.size} files under ${args.out}${pruned}\n`, stderr: "" };
}
