import { systemClock } from "@thaw/clock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { EndpointPod } from "../endpoint-pods.js";
import { EndpointSliceHub } from "./endpoint-slices.js";
import { kubeConfigFor } from "./kube-config.js";
import { EmulatedApiServer } from "./testing/api-server.js";
import { endpointSlice, type SliceEndpoint } from "./testing/builders.js";
import { waitFor } from "./testing/wait.js";

const ref = { namespace: "apps", service: "hello", portName: "http" };
const two: SliceEndpoint[] = [
  { ip: "10.0.0.1", pod: "hello-a", uid: "uid-a", ready: true },
  { ip: "10.0.0.2", pod: "hello-b", uid: "uid-b", ready: true },
];

describe("EndpointSlice informer against the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let hub: EndpointSliceHub;
  let seen: EndpointPod[][];
  const ready = () => (seen.at(-1) ?? []).filter((p) => p.routable).length;

  beforeEach(async () => {
    api = new EmulatedApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    hub = new EndpointSliceHub({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0.5,
      backoffInitialMs: 20,
      timeoutSeconds: 30,
    });
    seen = [];
  });
  afterEach(async () => {
    hub.close();
    await api.close();
  });

  it("lists first, then watches from the list's resourceVersion with bookmarks and a timeout", async () => {
    api.apply("endpointslices", "apps", endpointSlice({ service: "hello", port: 8012, endpoints: two }));
    const listRv = String(api.store.resourceVersion);
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => api.watches.length === 1, "the watch");
    const [list, watch] = api.requests;
    expect(list?.query.get("watch")).toBeNull();
    expect(list?.query.get("labelSelector")).toBe("kubernetes.io/service-name=hello");
    expect(watch?.query.get("resourceVersion")).toBe(listRv);
    expect(watch?.query.get("allowWatchBookmarks")).toBe("true");
    expect(watch?.query.get("timeoutSeconds")).toBe("30");
    expect(seen.at(-1)?.map((p) => p.address)).toEqual(["10.0.0.1:8012", "10.0.0.2:8012"]);
  });

  it("a bookmark moves the resourceVersion on; the next watch starts from it", async () => {
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => api.watches.length === 1, "the watch");
    // Changes to another Service move the cluster's version on without telling this watch.
    api.apply("endpointslices", "apps", endpointSlice({ service: "other", port: 1, endpoints: [] }));
    api.bookmark();
    const informer = hub.informerOf(ref);
    await waitFor(() => informer?.resourceVersion === String(api.store.resourceVersion), "the bookmark");
    api.cutWatches();
    await waitFor(() => api.requests.filter((r) => r.query.get("watch")).length === 2, "the second watch");
    expect(api.requests.at(-1)?.query.get("resourceVersion")).toBe(String(api.store.resourceVersion));
  });

  it("a cut stream re-watches from the last resourceVersion and never drops the ready pods", async () => {
    api.apply("endpointslices", "apps", endpointSlice({ service: "hello", port: 8012, endpoints: two }));
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => ready() === 2 && api.watches.length === 1, "two ready pods");
    for (let i = 0; i < 3; i++) {
      api.cutWatches();
      await waitFor(() => api.watches.length === 1, `watch ${i + 2}`);
    }
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({
        service: "hello",
        port: 8012,
        endpoints: [...two, { ip: "10.0.0.3", pod: "hello-c" }],
      }),
    );
    await waitFor(() => ready() === 3, "the third pod");
    expect(seen.every((pods) => pods.filter((p) => p.routable).length >= 2)).toBe(true);
    expect(hub.informerOf(ref)?.counts.lists).toBe(1);
  });

  it("410 Expired: lists again (state replaced at once, never emptied), then watches on", async () => {
    api.apply("endpointslices", "apps", endpointSlice({ service: "hello", port: 8012, endpoints: two }));
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => ready() === 2 && api.watches.length === 1, "two ready pods");
    // The history is compacted and the stream drops: the informer's version is now too old.
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({
        service: "hello",
        port: 8012,
        endpoints: [...two, { ip: "10.0.0.3", pod: "hello-c" }],
      }),
    );
    await waitFor(() => ready() === 3, "the third pod");
    api.store.compact();
    api.apply("endpointslices", "apps", endpointSlice({ service: "other", port: 1, endpoints: [] }));
    api.cutWatches();
    api.store.compact();
    await waitFor(
      () => (hub.informerOf(ref)?.counts.lists ?? 0) >= 2 && api.watches.length === 1,
      "the relist",
    );
    expect(ready()).toBe(3);
    expect(seen.every((pods) => pods.length >= 2)).toBe(true);
  });

  it("a 410 ERROR event from the watch itself leads to a relist", async () => {
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => api.watches.length === 1, "the watch");
    api.apply("endpointslices", "apps", endpointSlice({ service: "other", port: 1, endpoints: [] }));
    api.store.compact();
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({ service: "other", port: 1, endpoints: [{ ip: "1.1.1.1" }] }),
    );
    api.cutWatches();
    await waitFor(() => (hub.informerOf(ref)?.counts.lists ?? 0) === 2, "the relist");
    const watches = api.requests.filter((r) => r.query.get("watch"));
    expect(watches.length).toBeGreaterThanOrEqual(2);
  });

  it("a dual-stack Service counts each pod once, on its IPv4 address", async () => {
    const pods = [1, 2, 3].map((i) => ({ pod: `hello-${i}`, uid: `u${i}` }));
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({
        service: "hello",
        port: 8012,
        endpoints: pods.map((p, i) => ({ ...p, ip: `10.0.0.${i + 1}` })),
      }),
    );
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({
        service: "hello",
        addressType: "IPv6",
        port: 8012,
        endpoints: pods.map((p, i) => ({ ...p, ip: `fd00::${i + 1}` })),
      }),
    );
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => ready() === 3, "three pods");
    expect(seen.at(-1)?.map((p) => p.address)).toEqual(["10.0.0.1:8012", "10.0.0.2:8012", "10.0.0.3:8012"]);
  });

  it("terminating endpoints are not routed to; ready unset counts as ready", async () => {
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({
        service: "hello",
        port: 8012,
        endpoints: [
          { ip: "10.0.0.1", pod: "a" },
          { ip: "10.0.0.2", pod: "b", ready: false, serving: true, terminating: true },
          { ip: "10.0.0.3", pod: "c", ready: false },
        ],
      }),
    );
    hub.subscribePods(ref, (p) => seen.push(p));
    await waitFor(() => seen.length > 0, "the list");
    expect(seen.at(-1)?.map((p) => [p.name, p.routable, p.serving, p.terminating])).toEqual([
      ["a", true, true, false],
      ["b", false, true, true],
      ["c", false, false, false],
    ]);
  });

  it("a stalled (half-open) stream is given up after 1.5 x its timeout and re-opened", async () => {
    const quick = new EndpointSliceHub({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0,
      timeoutSeconds: 1,
    });
    try {
      quick.subscribePods(ref, () => {});
      await waitFor(() => api.watches.length === 1, "the watch");
      api.stallWatches();
      const before = api.requests.filter((r) => r.query.get("watch")).length;
      await waitFor(
        () => api.requests.filter((r) => r.query.get("watch")).length > before,
        "a new watch",
        5000,
      );
    } finally {
      quick.close();
    }
  });

  it("one informer per Service, however many subscribers", async () => {
    hub.subscribePods(ref, () => {});
    hub.subscribePods(ref, () => {});
    await waitFor(() => api.watches.length === 1, "the watch");
    await new Promise((r) => setTimeout(r, 100));
    expect(api.requests.filter((r) => !r.query.get("watch")).length).toBe(1);
    expect(api.watches.length).toBe(1);
  });
});

describe("informer failures against the emulated Kubernetes API server (no real API server runs here)", () => {
  it("a list answered 403 then 429 is retried with backoff until it succeeds; a watch answered 500 is re-opened", async () => {
    const api = new EmulatedApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    const hub = new EndpointSliceHub({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0,
      backoffInitialMs: 20,
    });
    try {
      const path = "/apis/discovery.k8s.io/v1/namespaces/apps/endpointslices";
      api.apply("endpointslices", "apps", endpointSlice({ service: "hello", port: 8012, endpoints: two }));
      api.failNext({ path, watch: false }, { status: 403 });
      api.failNext({ path, watch: false }, { status: 429, retryAfterSeconds: 1 });
      api.failNext({ path, watch: true }, { status: 500 });
      const seen: EndpointPod[][] = [];
      const t0 = Date.now();
      hub.subscribePods(ref, (p) => seen.push(p));
      await waitFor(() => api.watches.length === 1, "a watch that stays open");
      expect(seen.at(-1)?.length).toBe(2);
      // The 429's Retry-After was honoured before the third list.
      expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
      expect(api.requests.map((r) => `${r.query.get("watch") ? "watch" : "list"} ${r.status}`)).toEqual([
        "list 403",
        "list 429",
        "list 200",
        "watch 500",
        "watch 200",
      ]);
    } finally {
      hub.close();
      await api.close();
    }
  });
});
