import {
  AppsV1Api,
  CoordinationV1Api,
  DiscoveryV1Api,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "../kube-config.js";
import { EmulatedApiServer } from "./api-server.js";
import { deployment, endpointSlice } from "./builders.js";

interface Ev {
  type: string;
  object: { metadata?: { name?: string; resourceVersion?: string }; code?: number; reason?: string };
}

/** Opens a watch and collects its events until the stream ends. */
function collect(api: EmulatedApiServer, path: string, query: Record<string, string | number | boolean>) {
  const events: Ev[] = [];
  let ended: unknown = "open";
  const done = new Promise<void>((resolve) => {
    void new Watch(kubeConfigFor({ server: api.url })).watch(
      path,
      query,
      (type, object) => events.push({ type, object }),
      (err) => {
        ended = err;
        resolve();
      },
    );
  });
  return { events, done, ended: () => ended };
}

const replicasOf = (api: EmulatedApiServer, name: string) =>
  (api.get("deployments", "apps", name)?.spec as { replicas?: number } | undefined)?.replicas;

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(cond()).toBe(true);
};

describe("emulated Kubernetes API server (no real API server runs here), through @kubernetes/client-node", () => {
  let api: EmulatedApiServer;
  const slices = "/apis/discovery.k8s.io/v1/namespaces/apps/endpointslices";
  beforeEach(async () => {
    api = new EmulatedApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
  });
  afterEach(() => api.close());

  it("lists with the collection's resourceVersion and filters by label selector", async () => {
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({ service: "hello", port: 8012, endpoints: [{ ip: "10.0.0.1" }] }),
    );
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({ service: "other", port: 8012, endpoints: [{ ip: "10.0.0.2" }] }),
    );
    const d = kubeConfigFor({ server: api.url }).makeApiClient(DiscoveryV1Api);
    const list = await d.listNamespacedEndpointSlice({
      namespace: "apps",
      labelSelector: "kubernetes.io/service-name=hello",
    });
    expect(list.items.map((s) => s.metadata?.name)).toEqual(["hello-ipv4"]);
    expect(list.metadata?.resourceVersion).toBe(String(api.store.resourceVersion));
  });

  it("a watch from a resourceVersion streams only later changes, as ADDED/MODIFIED/DELETED, and bookmarks", async () => {
    api.apply("endpointslices", "apps", endpointSlice({ service: "hello", port: 8012, endpoints: [] }));
    const rv = String(api.store.resourceVersion);
    const w = collect(api, slices, { resourceVersion: rv, allowWatchBookmarks: true, timeoutSeconds: 30 });
    await until(() => api.watches.length === 1);
    const s = endpointSlice({
      service: "hello",
      name: "hello-b",
      port: 8012,
      endpoints: [{ ip: "10.0.0.9" }],
    });
    api.apply("endpointslices", "apps", s);
    api.apply("endpointslices", "apps", { ...s, endpoints: [] });
    api.remove("endpointslices", "apps", "hello-b");
    api.bookmark();
    await until(() => w.events.length === 4);
    expect(w.events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED", "BOOKMARK"]);
    const rvs = w.events.map((e) => Number(e.object.metadata?.resourceVersion));
    expect(rvs[0]).toBeGreaterThan(Number(rv));
    expect(rvs[1]).toBeGreaterThan(rvs[0] as number);
    expect(rvs[3]).toBe(api.store.resourceVersion);
    api.cutWatches();
  });

  it("timeoutSeconds ends the stream cleanly", async () => {
    const w = collect(api, slices, { timeoutSeconds: 1 });
    await w.done;
    expect(w.ended()).toBeNull();
  });

  it("a resourceVersion older than the history gets an ERROR event with a 410 Expired Status", async () => {
    api.apply("endpointslices", "apps", endpointSlice({ service: "hello", port: 8012, endpoints: [] }));
    const old = String(api.store.resourceVersion - 1);
    api.store.compact();
    const w = collect(api, slices, { resourceVersion: old });
    await w.done;
    expect(w.events).toHaveLength(1);
    expect(w.events[0]?.type).toBe("ERROR");
    expect(w.events[0]?.object).toMatchObject({ code: 410, reason: "Expired" });
  });

  it("scale subresource: GET, merge-patch, and 409 Conflict for a stale resourceVersion", async () => {
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 0 }));
    const apps = kubeConfigFor({ server: api.url }).makeApiClient(AppsV1Api);
    const before = await apps.readNamespacedDeploymentScale({ name: "hello", namespace: "apps" });
    expect(before.spec?.replicas).toBe(0);
    const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
    const after = await apps.patchNamespacedDeploymentScale(
      {
        name: "hello",
        namespace: "apps",
        body: { metadata: { resourceVersion: before.metadata?.resourceVersion }, spec: { replicas: 3 } },
      },
      merge,
    );
    expect(after.spec?.replicas).toBe(3);
    expect(replicasOf(api, "hello")).toBe(3);
    const stale = apps.patchNamespacedDeploymentScale(
      {
        name: "hello",
        namespace: "apps",
        body: { metadata: { resourceVersion: before.metadata?.resourceVersion }, spec: { replicas: 5 } },
      },
      merge,
    );
    await expect(stale).rejects.toMatchObject({ code: 409 });
    expect(replicasOf(api, "hello")).toBe(3);
  });

  it("Leases: create, 409 AlreadyExists, update with a stale resourceVersion gets 409, MicroTime checked", async () => {
    const c = kubeConfigFor({ server: api.url }).makeApiClient(CoordinationV1Api);
    const body = {
      metadata: { name: "l" },
      spec: {
        holderIdentity: "a",
        leaseDurationSeconds: 10,
        renewTime: "2026-01-01T00:00:00.000000Z" as unknown as Date,
      },
    };
    const created = await c.createNamespacedLease({ namespace: "apps", body });
    await expect(c.createNamespacedLease({ namespace: "apps", body })).rejects.toMatchObject({ code: 409 });
    const updated = await c.replaceNamespacedLease({
      name: "l",
      namespace: "apps",
      body: { ...created, spec: { ...created.spec, holderIdentity: "b" } },
    });
    expect(updated.spec?.holderIdentity).toBe("b");
    await expect(
      c.replaceNamespacedLease({
        name: "l",
        namespace: "apps",
        body: { ...created, spec: { holderIdentity: "c" } },
      }),
    ).rejects.toMatchObject({ code: 409 });
    await expect(
      c.replaceNamespacedLease({
        name: "l",
        namespace: "apps",
        body: { metadata: { name: "l" }, spec: { renewTime: "yesterday" as unknown as Date } },
      }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it("injected faults: the next N requests answer 429 with Retry-After, then the real answer", async () => {
    api.apply("deployments", "apps", deployment({ name: "hello" }));
    api.failNext(
      { path: "/apis/apps/v1/namespaces/apps/deployments/hello/scale" },
      { status: 429, count: 2, retryAfterSeconds: 3 },
    );
    const apps = kubeConfigFor({ server: api.url }).makeApiClient(AppsV1Api);
    const read = () => apps.readNamespacedDeploymentScale({ name: "hello", namespace: "apps" });
    await expect(read()).rejects.toMatchObject({ code: 429, headers: { "retry-after": "3" } });
    await expect(read()).rejects.toMatchObject({ code: 429 });
    expect((await read()).spec?.replicas).toBe(1);
  });

  it("a dual-stack Service has one slice per address type; addressType is validated and immutable", async () => {
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({ service: "s", addressType: "IPv6", port: 1, endpoints: [{ ip: "fd00::1" }] }),
    );
    expect(() =>
      api.apply("endpointslices", "apps", {
        ...endpointSlice({ service: "s", port: 1, endpoints: [] }),
        addressType: "IPv5",
      }),
    ).toThrow(/addressType/);
    expect(() =>
      api.apply("endpointslices", "apps", {
        ...endpointSlice({ service: "s", addressType: "IPv6", port: 1, endpoints: [] }),
        addressType: "IPv4",
        metadata: { name: "s-ipv6", labels: {} },
      }),
    ).toThrow(/immutable/);
  });

  it("refuses loopback endpoint addresses with 422, as a real API server does, unless told to accept them", async () => {
    for (const [addressType, ip] of [
      ["IPv4", "127.0.0.1"],
      ["IPv4", "127.3.2.1"],
      ["IPv6", "::1"],
    ] as const) {
      const res = await fetch(`${api.url}${slices}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(endpointSlice({ service: "lo", addressType, port: 1, endpoints: [{ ip }] })),
      });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { message: string }).message).toContain(
        "may not be in the loopback range",
      );
    }
    const lenient = new EmulatedApiServer({ acceptLoopbackEndpoints: true });
    expect(() =>
      lenient.apply(
        "endpointslices",
        "apps",
        endpointSlice({ service: "lo", port: 1, endpoints: [{ ip: "127.0.0.1" }] }),
      ),
    ).not.toThrow();
  });
});
