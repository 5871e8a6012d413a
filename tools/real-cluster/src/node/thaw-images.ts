import { fileURLToPath } from "node:url";
import { COMPONENTS, imageRef, importIntoContainerd, runTool, setupPodman } from "@thaw/images";
import { run } from "./netns.js";
import type { Node } from "./node.js";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));

/** Where `thaw k8s render` points images by default (`--image-registry`): the rendered manifests' names. */
export const RENDERED_REGISTRY = "ghcr.io/thaw-dev";

/**
 * Imports Thaw's images built by `npm run images` (podman storage, `localhost/thaw/<name>:<version>`)
 * into the node's containerd, and tags each also as `ghcr.io/thaw-dev/<name>:<version>`, the name the
 * rendered manifests use: for a node with no registry, that is what pushing them is. Returns the refs.
 */
export async function importThawImages(node: Node, names: string[]): Promise<string[]> {
  const components = names.map((n) => {
    const c = COMPONENTS.find((x) => x.name === n);
    if (!c) throw new Error(`no image named ${n}: one of ${COMPONENTS.map((x) => x.name).join(", ")}`);
    return c;
  });
  const refs = components.map((c) => imageRef(ROOT, c));
  const pm = setupPodman();
  const missing: string[] = [];
  for (const r of refs) if ((await runTool(pm, "podman", ["image", "exists", r])).code !== 0) missing.push(r);
  if (missing.length > 0) {
    throw new Error(
      `image ${missing.join(", ")} is not built: run \`npm run images -- --only ${names.join(",")}\``,
    );
  }
  await importIntoContainerd(pm, node.containerd.socket, refs, { log: () => {} });
  for (const ref of refs) {
    const alias = ref.replace(/^localhost\/thaw\//, `${RENDERED_REGISTRY}/`);
    run("ctr", ["--address", node.containerd.socket, "-n", "k8s.io", "images", "tag", "--force", ref, alias]);
  }
  return refs;
}
