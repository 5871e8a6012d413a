/**
 * What makes the rendered tree safe to apply and to delete: no field a real API server defaults inside an
 * atomic struct or a list's merge key (client-side then server-side apply would conflict), a Lease Role
 * that names its Lease, only Thaw's own Namespace in the kustomizations, no YAML aliases, and the config's
 * own labels and annotations on the Deployment and its pods.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_LEASE_NAME } from "@thaw/autoscaler-service";
import { afterAll, describe, expect, it } from "vitest";
import { isAlias, isNode, parseAllDocuments, visit } from "yaml";
import { k8sRenderCommand } from "../src/k8s/command.js";
import { allObjects, exampleFiles, kubectlKustomize, type Obj, objectsOf, render } from "./k8s/fixtures.js";

/** Two services in two app namespaces, with labels and annotations (the same mapping twice per Deployment). */
const TWO_NAMESPACES = {
  services: [
    {
      name: "cart",
      namespace: "shop",
      hosts: ["shop.example.com"],
      kubernetes: {
        deployment: "cart",
        image: "registry.example/cart:1",
        labels: { team: "payments", "example.com/tier": "web" },
        annotations: { "example.com/owner": "payments", "prometheus.io/scrape": "true" },
      },
    },
    {
      name: "catalog",
      namespace: "catalog-prod",
      hosts: ["catalog.example.com"],
      kubernetes: { deployment: "catalog", image: "registry.example/catalog:1" },
    },
  ],
};

/** Every value under `key` anywhere in `value`, with its path. */
function collect(value: unknown, key: string, path: string, out: [string, unknown][]): void {
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) collect(v, key, `${path}[${i}]`, out);
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (k === key) out.push([`${path}.${k}`, v]);
      collect(v, key, `${path}.${k}`, out);
    }
  }
}

function everyObject(): Obj[] {
  return [...allObjects(exampleFiles()), ...allObjects(render(TWO_NAMESPACES))];
}

function named(o: Obj): string {
  return `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

describe("no server-defaulted field is left out where client-side then server-side apply would conflict", () => {
  it("every fieldRef names apiVersion v1 (the server defaults it inside an atomic struct)", () => {
    const missing: string[] = [];
    for (const o of everyObject()) {
      const refs: [string, unknown][] = [];
      collect(o, "fieldRef", "", refs);
      for (const [path, ref] of refs) {
        if ((ref as { apiVersion?: string }).apiVersion !== "v1") missing.push(`${named(o)}${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("every container port and Service port names its protocol (part of the list's merge key)", () => {
    const missing: string[] = [];
    for (const o of everyObject()) {
      const ports: [string, unknown][] = [];
      collect(o.kind === "NetworkPolicy" ? {} : o, "ports", "", ports);
      for (const [path, list] of ports) {
        (list as { protocol?: string }[]).forEach((p, i) => {
          if (p.protocol !== "TCP") missing.push(`${named(o)}${path}[${i}]`);
        });
      }
    }
    expect(missing).toEqual([]);
  });

  it("every Gateway API and Envoy Gateway reference names its group and kind (CRD lists are atomic)", () => {
    const missing: string[] = [];
    for (const o of everyObject().filter((x) => x.kind === "HTTPRoute" || x.kind === "SecurityPolicy")) {
      const refs: [string, unknown][] = [];
      collect(o, "parentRefs", "", refs);
      collect(o, "backendRefs", "", refs);
      collect(o, "targetRefs", "", refs);
      for (const [path, list] of refs) {
        (list as { group?: string; kind?: string; weight?: number }[]).forEach((r, i) => {
          const route = o.kind === "HTTPRoute" && path.endsWith("backendRefs");
          if (r.group === undefined || r.kind === undefined || (route && r.weight !== 1)) {
            missing.push(`${named(o)}${path}[${i}]`);
          }
        });
      }
    }
    expect(missing).toEqual([]);
  });
});

describe("the autoscaler's Role in each service namespace", () => {
  it("is exactly what its Kubernetes scaler calls: read-only but for the scale subresource, events list/watch only", () => {
    const roles = allObjects(exampleFiles()).filter(
      (o) => o.kind === "Role" && o.metadata.name === "thaw-autoscaler",
    );
    expect(roles.length).toBeGreaterThan(0);
    for (const role of roles) {
      const rules = (role.rules ?? []) as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
      expect(
        rules.map((r) => `${r.apiGroups.join()}/${r.resources.join()}: ${r.verbs.join()}`).sort(),
      ).toEqual([
        "/events: list,watch",
        "/pods: list,watch",
        "apps/deployments/scale: get,patch",
        "apps/deployments: list,watch",
        "discovery.k8s.io/endpointslices: list,watch",
      ]);
    }
  });
});

describe("the autoscaler's Lease Role", () => {
  const roles = allObjects(exampleFiles()).filter(
    (o) => o.kind === "Role" && o.metadata.name === "thaw-autoscaler-leader",
  );
  type Rule = { resources: string[]; resourceNames?: string[]; verbs: string[] };
  const rules = (roles[0]?.rules ?? []) as Rule[];

  it("reads and replaces only the Lease the elector uses; create alone is unnamed", () => {
    expect(roles).toHaveLength(1);
    expect(rules.every((r) => r.resources.join() === "leases")).toBe(true);
    for (const r of rules) {
      if (r.resourceNames === undefined) expect(r.verbs).toEqual(["create"]);
      else expect(r.resourceNames).toEqual([DEFAULT_LEASE_NAME]);
    }
    const named = rules.filter((r) => r.resourceNames);
    expect(named.flatMap((r) => r.verbs).sort()).toEqual(["get", "update"]);
  });

  it("the autoscaler is told that same Lease name", () => {
    const dep = allObjects(exampleFiles()).find(
      (o) => o.metadata.name === "thaw-autoscaler" && o.kind === "Deployment",
    );
    const env = (
      (dep as Obj).spec as {
        template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
      }
    ).template.spec.containers[0]?.env;
    expect(env?.find((e) => e.name === "THAW_LEASE_NAME")?.value).toBe(DEFAULT_LEASE_NAME);
  });
});

describe("the kustomizations own only Thaw's namespace", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("no overlay or ingress kustomization holds an app Namespace; the app namespaces are an opt-in file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "thaw-k8s-ns-"));
    dirs.push(dir);
    const config = join(dir, "thaw.config.yaml");
    await writeFile(config, JSON.stringify(TWO_NAMESPACES));
    const out = join(dir, "k8s");
    const r = await k8sRenderCommand(["--config", config, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    for (const kdir of [
      "overlays/dev",
      "overlays/prod",
      "ingress/nginx",
      "ingress/gateway-api",
      "ingress/istio",
    ]) {
      const namespaces = objectsOf(kubectlKustomize(join(out, kdir)))
        .filter((o) => o.kind === "Namespace")
        .map((o) => o.metadata.name);
      expect(namespaces, kdir).toEqual(kdir.startsWith("overlays") ? ["thaw-system"] : []);
    }
    const optIn = render(TWO_NAMESPACES).get("app-namespaces.yaml") ?? "";
    expect(objectsOf(optIn).map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Namespace/catalog-prod",
      "Namespace/shop",
    ]);
  });
});

describe("the config's labels and annotations, and YAML without aliases", () => {
  const files = render(TWO_NAMESPACES);
  const cart = allObjects(files).find((o) => o.kind === "Deployment" && o.metadata.name === "cart") as Obj & {
    metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
    spec: {
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string>; annotations?: Record<string, string> } };
    };
  };

  it("are on the Deployment and its pod template; the selector keeps Thaw's labels only", () => {
    for (const m of [cart.metadata, cart.spec.template.metadata]) {
      expect(m.labels).toMatchObject({
        team: "payments",
        "example.com/tier": "web",
        "app.kubernetes.io/name": "cart",
      });
      expect(m.annotations).toEqual({ "example.com/owner": "payments", "prometheus.io/scrape": "true" });
    }
    expect(cart.spec.selector.matchLabels).toEqual({
      "app.kubernetes.io/name": "cart",
      "serving.knative.dev/revision": "cart",
    });
  });

  it("no file has a YAML anchor or alias, though the same mapping is used twice in one object", () => {
    const found: string[] = [];
    for (const [path, text] of files) {
      if (!path.endsWith(".yaml")) continue;
      for (const doc of parseAllDocuments(text)) {
        visit(doc, (_key, node) => {
          if (isAlias(node)) found.push(`${path}: alias *${node.source}`);
          else if (isNode(node) && node.anchor) found.push(`${path}: anchor &${node.anchor}`);
        });
      }
    }
    expect(found).toEqual([]);
  });
});
