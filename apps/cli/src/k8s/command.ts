import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { helpText, parseCommandLine } from "@thaw/command-line";
import { packageVersion } from "@thaw/command-line/node";
import { formatIssues } from "@thaw/config";
import { DEFAULT_CONFIG, RENDER } from "../commands.js";
import { loadAndCheck } from "../validate.js";
import { renderOptionError } from "./flag-rules.js";
import { DEFAULT_RENDER_OPTIONS, type RenderOptions } from "./options.js";
import { renderKubernetes } from "./render.js";
import { pruneRendered } from "./rendered-list.js";

/** What a command line of `thaw k8s render` asks for: a render, its help or version, or a mistake. */
export type RenderArgs =
  | { ok: true; config: string; out: string | undefined; options: RenderOptions }
  | { ok: false; kind: "help" | "version" | "error"; error?: string };

/**
 * Reads `thaw k8s render`'s command line against its table (commands.ts, so `--help` lists exactly what
 * is read), then checks each value against the rule the API server or the registry would apply.
 */
export function parseRenderArgs(argv: readonly string[]): RenderArgs {
  const parsed = parseCommandLine(RENDER, argv);
  if (parsed.kind === "error") return { ok: false, kind: "error", error: parsed.message };
  if (parsed.kind !== "ok") return { ok: false, kind: parsed.kind };
  const f = parsed.flags;
  const empty = Object.keys(f).find((k) => f[k] === "");
  if (empty) return { ok: false, kind: "error", error: `${empty} needs a value` };
  const options: RenderOptions = { ...DEFAULT_RENDER_OPTIONS };
  if (f["--image-registry"] !== undefined) options.imageRegistry = f["--image-registry"].replace(/\/$/, "");
  if (f["--image-tag"] !== undefined) options.imageTag = f["--image-tag"];
  if (f["--system-namespace"] !== undefined) options.systemNamespace = f["--system-namespace"];
  if (f["--ingress-class"] !== undefined) options.ingressClass = f["--ingress-class"];
  if (f["--istio-namespace"] !== undefined) options.istioNamespace = f["--istio-namespace"];
  if (f["--ingress-namespaces"] !== undefined) {
    options.ingressNamespaces = f["--ingress-namespaces"].split(",").map((n) => n.trim());
  }
  const gateway = f["--gateway"];
  if (gateway !== undefined) {
    const [namespace, name, extra] = gateway.split("/");
    if (!namespace || !name || extra !== undefined) {
      return { ok: false, kind: "error", error: `--gateway must be namespace/name, got ${gateway}` };
    }
    options.gateway = { namespace, name };
  }
  const bad = renderOptionError(options);
  if (bad) return { ok: false, kind: "error", error: bad };
  return { ok: true, config: f["--config"] ?? DEFAULT_CONFIG, out: f["--out"], options };
}

/** `thaw k8s render`: writes the tree under `--out`, or prints every file to stdout; exit code and text. */
export async function k8sRenderCommand(
  argv: readonly string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const args = parseRenderArgs(argv);
  if (!args.ok) {
    if (args.kind === "help") return { code: 0, stdout: helpText(RENDER), stderr: "" };
    if (args.kind === "version") {
      return { code: 0, stdout: `thaw ${packageVersion(import.meta.url)}\n`, stderr: "" };
    }
    // Every mistake is one line naming the flag (and the flag meant, or the rule its value breaks).
    return { code: 2, stdout: "", stderr: `${RENDER.name}: ${args.error}\n` };
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
