/**
 * Each rendered ingress option sends what the hook holds (cold) or marks proxy mode through the activator,
 * as infra/nginx does: the hook's activator-bound answer carries Knative-Serving-Namespace/-Revision, and
 * the rendered route picks the activator from exactly those headers (ingress-nginx, which cannot switch its
 * backend on an auth answer, sends every request there). The route choice is evaluated here with each
 * API's documented precedence; the hook's answers come from the hook itself.
 */
import { type Allow, allowHeaders } from "@thaw/ingress-hook";
import { Header } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import { allObjects, render } from "./k8s/fixtures.js";

const CONFIG = {
  services: [
    {
      name: "api",
      namespace: "shop",
      hosts: ["api.example.com"],
      paths: ["/v1"],
      kubernetes: { deployment: "api-server", image: "registry.example/api:2" },
    },
  ],
};
const objs = allObjects(render(CONFIG));
/** Rendered objects of one kind, loosely typed: each test reads the fields it checks. */
type Loose = {
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec: Record<string, unknown>;
};
const of = (kind: string) => objs.filter((o) => o.kind === kind) as unknown as Loose[];
/** The first object of a kind (the test fails if there is none). */
const one = (kind: string): Loose => {
  const o = of(kind)[0];
  if (!o) throw new Error(`no ${kind} rendered`);
  return o;
};

/** The request headers after the ingress copied the hook's answer (its allow headers) onto the request. */
function copied(via: Allow["via"]): Record<string, string> {
  const allow: Allow = {
    kind: "allow",
    revision: { namespace: "shop", name: "api" },
    key: "shop/api",
    upstream: "10.0.0.1:8012",
    via,
    warm: via === "pod",
  };
  return Object.fromEntries(allowHeaders(allow));
}
/** Held while cold, or the revision in proxy mode: the hook answers activator-bound. */
const HELD = copied("activator");
/** Warm, serve mode: straight to a pod. */
const WARM = copied("pod");

type HeaderMatch = { type?: string; name: string; value: string };
type RouteRule = {
  matches: { headers?: HeaderMatch[] }[];
  backendRefs: { name: string; namespace?: string }[];
};

/** Gateway API: of the rules whose path matches, the one with the most header matches that all hold wins. */
function gatewayBackend(rules: RouteRule[], headers: Record<string, string>): string {
  let best: { n: number; to: string } | undefined;
  for (const r of rules) {
    for (const m of r.matches) {
      const hs = m.headers ?? [];
      if (!hs.every((h) => (h.type ?? "Exact") === "Exact" && headers[h.name.toLowerCase()] === h.value))
        continue;
      if (!best || hs.length > best.n)
        best = { n: hs.length, to: `${r.backendRefs[0]?.namespace ?? "shop"}/${r.backendRefs[0]?.name}` };
    }
  }
  return best?.to ?? "none";
}

/** Istio: the first http route whose match holds wins. */
function istioHost(
  http: {
    match: { headers?: Record<string, { exact: string }> }[];
    route: { destination: { host: string } }[];
  }[],
  headers: Record<string, string>,
): string {
  const r = http.find((h) =>
    h.match.some((m) => Object.entries(m.headers ?? {}).every(([n, v]) => headers[n] === v.exact)),
  );
  return r?.route[0]?.destination.host ?? "none";
}

describe("held and proxy-mode requests reach the activator, warm ones the pods", () => {
  it("ingress-nginx: every request goes to the activator, and the hook's revision headers are copied on", () => {
    const ing = one("Ingress");
    expect(ing.metadata.namespace).toBe("thaw-system");
    const rules = ing.spec.rules as { http: { paths: { backend: { service: { name: string } } }[] } }[];
    expect(rules.flatMap((r) => r.http.paths.map((p) => p.backend.service.name))).toEqual(["thaw-activator"]);
    const copied = String(
      ing.metadata.annotations?.["nginx.ingress.kubernetes.io/auth-response-headers"],
    ).split(",");
    expect(copied).toEqual(expect.arrayContaining([Header.namespace, Header.revision]));
  });

  it("Gateway API: the held answer's headers select the activator rule; a warm answer the Service", () => {
    const rules = one("HTTPRoute").spec.rules as RouteRule[];
    expect(gatewayBackend(rules, HELD)).toBe("thaw-system/thaw-activator");
    expect(gatewayBackend(rules, WARM)).toBe("shop/api-server");
    const ext = one("SecurityPolicy").spec.extAuth as {
      recomputeRoute?: boolean;
      http: { headersToBackend: string[] };
    };
    expect(ext.recomputeRoute).toBe(true);
    expect(ext.http.headersToBackend).toEqual(expect.arrayContaining([Header.namespace, Header.revision]));
    const grants = of("ReferenceGrant").map((g) => g.spec);
    expect(grants).toContainEqual({
      from: [{ group: "gateway.networking.k8s.io", kind: "HTTPRoute", namespace: "shop" }],
      to: [{ group: "", kind: "Service", name: "thaw-activator" }],
    });
  });

  it("Istio: the VirtualService's first route takes the held answer to the activator, the second the rest", () => {
    const vs = one("VirtualService");
    const http = vs.spec.http as Parameters<typeof istioHost>[0];
    expect(istioHost(http, HELD)).toBe("thaw-activator.thaw-system.svc.cluster.local");
    expect(istioHost(http, WARM)).toBe("api-server.shop.svc.cluster.local");
    expect(vs.spec.gateways).toEqual([`istio-system/${one("Gateway").metadata.name}`]);
  });
});
