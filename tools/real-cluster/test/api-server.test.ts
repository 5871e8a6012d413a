/**
 * Thaw's Kubernetes client code (@thaw/kubernetes) and the emulated API server held against a real
 * kube-apiserver: what both must refuse, the informer's relist after a real 410, leader election on a
 * real Lease, and the scale writer on a real Deployment's scale subresource.
 */
import { systemClock } from "@thaw/clock";
import { EndpointSliceHub, kubeConfigFor, LeaderElector, ScaleWriter } from "@thaw/kubernetes/node";
import { deployment, EmulatedApiServer, endpointSlice, waitFor } from "@thaw/kubernetes/node/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiTarget, apiRequest } from "../src/api-request.js";
import { type ControlPlane, startControlPlane } from "../src/control-plane.js";
import { adminOf } from "./support.js";

const NS = "apps";
let cp: ControlPlane;
let admin: ApiTarget;
const emulated = new EmulatedApiServer();
const kubeConfig = () => kubeConfigFor({ kubeconfig: cp.kubeconfigPath });
const slices = `/apis/discovery.k8s.io/v1/namespaces/${NS}/endpointslices`;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = adminOf(cp);
  await emulated.start();
  const ns = await apiRequest(admin, "POST", "/api/v1/namespaces", { metadata: { name: NS } });
  expect(ns.status).toBe(201);
});
afterAll(async () => {
  await emulated.close();
  await cp?.stop();
});

describe("the emulated API server agrees with a real one", () => {
  const post = async (server: "real" | "emulated", path: string, body: unknown) =>
    server === "real"
      ? apiRequest(admin, "POST", path, body)
      : await fetch(`${emulated.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { message?: string } }));

  it("EndpointSlice addresses in 127.0.0.0/8 and ::1 are refused (422) by both; a pod address is accepted by both", async () => {
    const cases = [
      { name: "lo4", addressType: "IPv4", ip: "127.0.0.1", want: 422 },
      { name: "lo4b", addressType: "IPv4", ip: "127.3.2.1", want: 422 },
      { name: "lo6", addressType: "IPv6", ip: "::1", want: 422 },
      { name: "pod4", addressType: "IPv4", ip: "10.244.0.5", want: 201 },
      { name: "pod6", addressType: "IPv6", ip: "fd00:10:244::5", want: 201 },
    ] as const;
    for (const c of cases) {
      const body = endpointSlice({
        service: c.name,
        name: c.name,
        addressType: c.addressType,
        port: 80,
        endpoints: [{ ip: c.ip }],
      });
      const real = await post("real", slices, {
        apiVersion: "discovery.k8s.io/v1",
        kind: "EndpointSlice",
        ...body,
      });
      const emu = await post("emulated", slices, body);
      expect({ case: c.name, real: real.status, emulated: emu.status }).toEqual({
        case: c.name,
        real: c.want,
        emulated: c.want,
      });
      if (c.want === 422) {
        expect(real.body.message).toContain("loopback");
        expect(emu.body.message).toContain("loopback");
      }
    }
  });

  it("events: the field selector the autoscaler's PodEventHub sends picks the same Events on both; a label pods do not have is 400 on both", async () => {
    const events = `/api/v1/namespaces/${NS}/events`;
    const ev = (name: string, kind: string, type: string) => ({
      apiVersion: "v1",
      kind: "Event",
      metadata: { name, namespace: NS },
      involvedObject: { kind, name: "p-1", namespace: NS },
      reason: "Unhealthy",
      message: "Readiness probe failed: HTTP probe failed with statuscode: 503",
      type,
      count: 2,
      source: { component: "kubelet" },
      firstTimestamp: "2026-12-06T10:00:00Z",
      lastTimestamp: "2026-12-06T10:00:05Z",
    });
    for (const server of ["real", "emulated"] as const) {
      for (const [name, kind, type] of [
        ["w-pod", "Pod", "Warning"],
        ["n-pod", "Pod", "Normal"],
        ["w-node", "Node", "Warning"],
      ] as const) {
        expect((await post(server, events, ev(name, kind, type))).status).toBe(201);
      }
    }
    const q = `?fieldSelector=${encodeURIComponent("involvedObject.kind=Pod,type=Warning")}`;
    const names = (body: unknown) =>
      ((body as { items: { metadata: { name: string } }[] }).items ?? []).map((i) => i.metadata.name);
    const real = await apiRequest(admin, "GET", `${events}${q}`);
    const emu = await fetch(`${emulated.url}${events}${q}`).then(async (r) => ({
      status: r.status,
      body: await r.json(),
    }));
    expect([real.status, names(real.body)]).toEqual([200, ["w-pod"]]);
    expect([emu.status, names(emu.body)]).toEqual([200, ["w-pod"]]);
    const badQ = `?fieldSelector=${encodeURIComponent("involvedObject.kind=Pod")}`;
    const realBad = await apiRequest(admin, "GET", `/api/v1/namespaces/${NS}/pods${badQ}`);
    const emuBad = await fetch(`${emulated.url}/api/v1/namespaces/${NS}/pods${badQ}`);
    expect([realBad.status, emuBad.status]).toEqual([400, 400]);
  });

  it("the real server refuses loopback Endpoints addresses too (the emulator serves no Endpoints)", async () => {
    const r = await apiRequest(admin, "POST", `/api/v1/namespaces/${NS}/endpoints`, {
      metadata: { name: "lo" },
      subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ port: 80 }] }],
    });
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("loopback");
  });
});

describe("@thaw/kubernetes against a real kube-apiserver", () => {
  it("ScaleWriter sets a real Deployment's count through its scale subresource and puts it back when changed", async () => {
    const d = deployment({ name: "scaled", replicas: 0 });
    const created = await apiRequest(admin, "POST", `/apis/apps/v1/namespaces/${NS}/deployments`, {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: d.metadata,
      spec: d.spec,
    });
    expect(created.status).toBe(201);
    const replicas = async () =>
      (
        (await apiRequest(admin, "GET", `/apis/apps/v1/namespaces/${NS}/deployments/scaled`)).body.spec as {
          replicas: number;
        }
      ).replicas;
    const writer = new ScaleWriter({
      kubeConfig: kubeConfig(),
      namespace: NS,
      deployment: "scaled",
      clock: systemClock,
      random: () => 0,
      backoffInitialMs: 50,
      resyncMs: 200,
    });
    try {
      // The Deployment controller writes a new Deployment (revision annotation, status) while the writer
      // reads then PATCHes with that resourceVersion: a real 409 is likely here, and the writer retries it.
      await writer.want(3).catch((e: { status?: number }) => expect(e.status).toBe(409));
      await waitFor(
        () => writer.status().observed === 3 && writer.status().error === undefined,
        "3 replicas",
        15_000,
      );
      expect(await replicas()).toBe(3);
      const other = await apiRequest(
        admin,
        "PATCH",
        `/apis/apps/v1/namespaces/${NS}/deployments/scaled/scale`,
        { spec: { replicas: 7 } },
        "application/merge-patch+json",
      );
      expect(other.status).toBe(200);
      let now = 7;
      for (let i = 0; i < 100 && now !== 3; i++) {
        await new Promise((r) => setTimeout(r, 100));
        now = await replicas();
      }
      expect(now).toBe(3);
    } finally {
      writer.close();
    }
  });

  it("LeaderElector: one of two candidates leads on a real Lease; a release hands it to the other", async () => {
    const make = (identity: string) =>
      new LeaderElector({
        kubeConfig: kubeConfig(),
        namespace: NS,
        name: "thaw-autoscaler",
        identity,
        clock: systemClock,
      });
    const a = make("autoscaler-a");
    const b = make("autoscaler-b");
    try {
      a.start();
      b.start();
      await Promise.all([a.settled(), b.settled()]);
      await waitFor(() => a.leading !== b.leading, "exactly one leader", 15_000);
      const [leader, follower] = a.leading ? [a, b] : [b, a];
      const lease = await apiRequest(
        admin,
        "GET",
        `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/thaw-autoscaler`,
      );
      expect(lease.body.spec).toMatchObject({
        holderIdentity: leader === a ? "autoscaler-a" : "autoscaler-b",
      });
      await leader.stop();
      await waitFor(() => follower.leading, "the follower to take over", 15_000);
    } finally {
      await a.stop({ release: false });
      await b.stop({ release: false });
    }
  });

  it("the EndpointSlice informer lists again after a real 410 (a watch older than a restarted API server's cache)", async () => {
    const logs: string[] = [];
    const hub = new EndpointSliceHub({
      kubeConfig: kubeConfig(),
      clock: systemClock,
      random: () => 0.5,
      backoffInitialMs: 50,
      timeoutSeconds: 300,
      logger: { info: (m) => logs.push(m), warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    });
    const ref = { namespace: NS, service: "hello", portName: "http" };
    const put = (ips: string[]) => {
      const body = endpointSlice({
        service: "hello",
        port: 8012,
        endpoints: ips.map((ip, i) => ({ ip, pod: `hello-${i}`, ready: true })),
      });
      return { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", ...body };
    };
    let seen: readonly unknown[] = [];
    try {
      expect((await apiRequest(admin, "POST", slices, put(["10.244.0.1", "10.244.0.2"]))).status).toBe(201);
      hub.subscribePods(ref, (p) => {
        seen = p;
      });
      await waitFor(() => seen.length === 2, "two pods listed", 15_000);
      // Writes elsewhere move etcd's revision past the informer's version; the restarted server's watch
      // cache starts there, so the informer's next watch is too old for it.
      for (let i = 0; i < 5; i++) {
        const r = await apiRequest(admin, "POST", `/api/v1/namespaces/${NS}/configmaps`, {
          metadata: { name: `bump-${i}` },
        });
        expect(r.status).toBe(201);
      }
      await cp.restartApiServer();
      await waitFor(() => (hub.informerOf(ref)?.counts.lists ?? 0) >= 2, "the relist", 60_000);
      expect(logs).toContain("watch expired; listing again");
      expect(seen.length).toBe(2);
      const cur = await apiRequest(admin, "GET", `${slices}/hello-ipv4`);
      const next = { ...put(["10.244.0.1", "10.244.0.2", "10.244.0.3"]), metadata: cur.body.metadata };
      expect((await apiRequest(admin, "PUT", `${slices}/hello-ipv4`, next)).status).toBe(200);
      await waitFor(() => seen.length === 3, "the third pod after the relist", 15_000);
    } finally {
      hub.close();
    }
  });
});
