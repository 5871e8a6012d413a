import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { STRIPPED_HEADERS } from "../src/decision/internal-headers.js";
import { createHook, hookServiceApp } from "../src/node/service.js";

// Envoy, Traefik and Istio are not installed on this machine (and cannot be fetched), so their configs
// are checked for structure and cross-checked against the hook's real routes; nginx runs for real in
// nginx.test.ts.
const infra = (p: string) => fileURLToPath(new URL(`../../../infra/${p}`, import.meta.url));
const read = (p: string) => readFileSync(infra(p), "utf8");
// biome-ignore lint/suspicious/noExplicitAny: parsed YAML is untyped; the assertions below check its shape
type Any = any;

/** The token literal every infra file presents to the hook. */
const HOOK_TOKEN = "change-me-to-a-long-random-string";

/** A hook whose one service is warm and that requires the infra files' token. */
function warmApp() {
  const clock = new ManualClock(0);
  const hook = createHook({
    activatorUrl: "http://127.0.0.1:1",
    services: [{ name: "hello", namespace: "default", hosts: ["hello.localhost"], paths: ["/app"] }],
    clock,
    fetch: async () => new Response("no activator in this test", { status: 500 }),
  });
  hook.cache.recordActivation("default/hello", ["10.0.0.9:8012"], 0);
  return hookServiceApp(hook, HOOK_TOKEN);
}

describe("infra/envoy/envoy.yaml (structure only: no Envoy binary on this machine)", () => {
  const cfg = parse(read("envoy/envoy.yaml")) as Any;
  const hcm = cfg.static_resources.listeners[0].filter_chains[0].filters[0].typed_config;
  const filters = hcm.http_filters as Any;
  const authz = filters[0].typed_config;

  it("runs ext_authz (HTTP service) before the router", () => {
    expect(filters.map((f: Any) => f.name)).toEqual([
      "envoy.filters.http.ext_authz",
      "envoy.filters.http.router",
    ]);
    expect(authz["@type"]).toBe("type.googleapis.com/envoy.extensions.filters.http.ext_authz.v3.ExtAuthz");
    expect(authz.failure_mode_allow).toBe(false);
    expect(authz.status_on_error.code).toBe("ServiceUnavailable");
  });

  it("its path_prefix reaches the hook's Envoy dialect, which reads the original path after it", async () => {
    const prefix = authz.http_service.path_prefix as unknown as string;
    const app = warmApp();
    const added = authz.http_service.authorization_request.headers_to_add as Any;
    const auth = added.find((h: Any) => h.key === "authorization")?.value as string;
    const hit = await app.request(`${prefix}/app/x`, {
      headers: { host: "hello.localhost", authorization: auth },
    });
    expect(hit.status).toBe(200);
    const denied = await app.request(`${prefix}/app/x`, { headers: { host: "hello.localhost" } });
    expect(denied.status).toBe(401);
    expect(hit.headers.get("x-thaw-upstream")).toBe("10.0.0.9:8012");
    const miss = await app.request(`${prefix}/other`, {
      headers: { host: "hello.localhost", authorization: auth },
    });
    expect(miss.status).toBe(404);
  });

  it("passes X-Thaw-Upstream to the upstream and routes by it (ORIGINAL_DST)", () => {
    const up = authz.http_service.authorization_response.allowed_upstream_headers.patterns as Any;
    expect(up.map((p: Any) => p.exact)).toContain("x-thaw-upstream");
    // An activator-bound answer names the revision for the activator; Envoy copies it onto the request.
    expect(up.map((p: Any) => p.exact)).toEqual(
      expect.arrayContaining(["knative-serving-namespace", "knative-serving-revision"]),
    );
    const pods = (cfg.static_resources.clusters as Any).find((c: Any) => c.name === "thaw_pods");
    expect(pods.type).toBe("ORIGINAL_DST");
    expect(pods.original_dst_lb_config).toEqual({
      use_http_header: true,
      http_header_name: "x-thaw-upstream",
    });
    const client = authz.http_service.authorization_response.allowed_client_headers.patterns as Any;
    expect(client.map((p: Any) => p.exact)).toContain("retry-after");
  });

  it("removes every internal header except the one ext_authz sets for routing", () => {
    const removed = hcm.route_config.virtual_hosts[0].request_headers_to_remove as unknown as string[];
    const want = STRIPPED_HEADERS.filter((h) => h !== "x-thaw-upstream");
    expect(want.filter((h) => !removed.includes(h))).toEqual([]);
  });

  it("sets the route token itself, overriding any client value", () => {
    const add = authz.http_service.authorization_request.headers_to_add as Any;
    expect(add.map((h: Any) => h.key)).toContain("x-thaw-route-token");
  });
});

describe("infra/traefik (structure only: no Traefik binary on this machine)", () => {
  const stat = parse(read("traefik/traefik.yml")) as Any;
  const dyn = parse(read("traefik/dynamic.yml")) as Any;

  it("the static config loads the dynamic file", () => {
    expect(stat.providers.file.filename).toBe("dynamic.yml");
    expect(stat.entryPoints.web.address).toBe("127.0.0.1:8080");
  });

  it("strips internal headers before forwardAuth on every router", () => {
    for (const [name, router] of Object.entries(dyn.http.routers as Any)) {
      expect((router as Any).middlewares, name).toEqual(["thaw-strip-internal", "thaw-hook"]);
    }
    const custom = dyn.http.middlewares["thaw-strip-internal"].headers.customRequestHeaders as Any;
    const lower = Object.fromEntries(Object.entries(custom).map(([k, v]) => [k.toLowerCase(), v]));
    for (const h of STRIPPED_HEADERS) expect(lower[h], h).toBe("");
  });

  it("forwardAuth points at the hook's Traefik dialect and copies X-Thaw-Upstream", async () => {
    const fa = dyn.http.middlewares["thaw-hook"].forwardAuth;
    expect(fa.trustForwardHeader).toBe(false);
    expect(fa.authResponseHeaders).toContain("X-Thaw-Upstream");
    const address = new URL(fa.address as unknown as string);
    const path = address.pathname + address.search;
    const app = warmApp();
    const headers = {
      host: "127.0.0.1:8090",
      "x-forwarded-method": "POST",
      "x-forwarded-proto": "http",
      "x-forwarded-host": "hello.localhost",
      "x-forwarded-uri": "/app/orders?id=1",
    };
    const r = await app.request(path, { headers });
    expect(r.status).toBe(200);
    expect((await app.request(address.pathname, { headers })).status).toBe(401);
    expect(r.headers.get("x-thaw-upstream")).toBe("10.0.0.9:8012");
    expect(r.headers.get("cache-control")).toBe("max-age=1, stale-while-revalidate=1");
  });

  it("its router hosts are hosts the hook's table can route", () => {
    const rule = dyn.http.routers.hello.rule as unknown as string;
    expect(rule).toMatch(/^Host\(`[a-z0-9.-]+`\)$/);
  });
});

describe("infra/istio/authorization-policy.yaml (structure only: no cluster on this machine)", () => {
  const docs = parseAllDocuments(read("istio/authorization-policy.yaml")).map((d) => d.toJS() as Any);

  it("declares the CUSTOM provider and a policy that uses it", () => {
    const op = docs.find((d) => d.kind === "IstioOperator");
    const pol = docs.find((d) => d.kind === "AuthorizationPolicy");
    const provider = op?.spec.meshConfig.extensionProviders[0];
    expect(pol?.apiVersion).toBe("security.istio.io/v1");
    expect(pol?.spec.action).toBe("CUSTOM");
    expect(pol?.spec.provider.name).toBe(provider?.name);
    expect(provider?.envoyExtAuthzHttp.headersToUpstreamOnAllow).toContain("x-thaw-upstream");
    expect(provider?.envoyExtAuthzHttp.includeRequestHeadersInCheck).toContain("x-envoy-decorator-operation");
  });

  it("its pathPrefix reaches the hook's Envoy dialect", async () => {
    const op = docs.find((d) => d.kind === "IstioOperator");
    const http = op?.spec.meshConfig.extensionProviders[0].envoyExtAuthzHttp;
    const prefix = http.pathPrefix as unknown as string;
    const extra = http.includeAdditionalHeadersInCheck as Record<string, string>;
    const r = await warmApp().request(`${prefix}/app`, { headers: { host: "hello.localhost", ...extra } });
    expect(r.status).toBe(200);
  });
});

describe("infra/nginx/thaw-proxy.conf", () => {
  // The activator's revision headers come from the hook's answer alone (empty, so not sent, on a pod-bound one).
  const fromHook: Record<string, string> = {
    "knative-serving-namespace": "$thaw_via_namespace",
    "knative-serving-revision": "$thaw_via_revision",
  };
  it("clears every internal header on the way to the pod, or sets it from the hook's answer", () => {
    const conf = read("nginx/thaw-proxy.conf").toLowerCase();
    for (const h of STRIPPED_HEADERS) {
      expect(conf, h).toContain(`proxy_set_header ${h} ${fromHook[h] ?? '""'};`);
    }
    for (const [h, v] of Object.entries(fromHook)) {
      expect(conf).toContain(`auth_request_set ${v} $upstream_http_${h.replaceAll("-", "_")};`);
    }
  });
});
