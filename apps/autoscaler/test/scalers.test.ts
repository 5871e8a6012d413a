import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { verifyScaleWebhook } from "@thaw/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { KubernetesScaler } from "../src/scalers/kubernetes.js";
import type { PodInfo } from "../src/scalers/scaler.js";
import { WebhookScaler } from "../src/scalers/webhook.js";

const SECRET = "scaler-test-secret-0123";

const rev = { namespace: "default", name: "hello" };
let server: Server | undefined;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function listen(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<string> {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => handler(req, res, body));
  });
  await new Promise<void>((r) => server?.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function until<T>(get: () => T | undefined, ms = 3000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** An EndpointSlice as the discovery.k8s.io/v1 API documents it. */
function slice(name: string, endpoints: { ip: string; pod: string; ready: boolean }[]) {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name, namespace: "serving", labels: { "kubernetes.io/service-name": "hello-private" } },
    addressType: "IPv4",
    ports: [
      { name: "http", port: 8012, protocol: "TCP" },
      { name: "http-autometric", port: 9090, protocol: "TCP" },
    ],
    endpoints: endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: e.ready, serving: e.ready, terminating: false },
      targetRef: { kind: "Pod", name: e.pod, namespace: "serving" },
    })),
  };
}

describe("KubernetesScaler (documented API shapes, no real API server here)", () => {
  it("patches the Deployment's scale subresource with a merge patch of spec.replicas", async () => {
    const seen: { method?: string; url?: string; type?: string; auth?: string; body: string }[] = [];
    const base = await listen((req, res, body) => {
      seen.push({
        method: req.method,
        url: req.url,
        type: req.headers["content-type"],
        auth: req.headers.authorization,
        body,
      });
      if (req.url?.includes("/scale")) {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            apiVersion: "autoscaling/v1",
            kind: "Scale",
            metadata: { name: "hello", namespace: "serving" },
            spec: { replicas: JSON.parse(body).spec.replicas },
            status: { replicas: 0, selector: "app=hello" },
          }),
        );
      } else res.writeHead(200, { "content-type": "application/json" }).end("");
    });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "fake", server: base, skipTLSVerify: true }],
      users: [{ name: "u", token: "secret-token" }],
      contexts: [{ name: "ctx", cluster: "fake", user: "u" }],
      currentContext: "ctx",
    });
    const scaler = new KubernetesScaler({ kubeConfig: kc, rewatchMs: 50 });
    cleanups.push(() => scaler.close());
    scaler.register({
      ...rev,
      kubernetesNamespace: "serving",
      deployment: "hello",
      service: "hello-private",
    });
    await scaler.scale(rev, 3);
    const patch = seen.find((s) => s.method === "PATCH");
    expect(patch).toMatchObject({
      url: "/apis/apps/v1/namespaces/serving/deployments/hello/scale",
      type: "application/merge-patch+json",
      auth: "Bearer secret-token",
    });
    expect(JSON.parse(patch?.body ?? "{}")).toEqual({ spec: { replicas: 3 } });
  });

  it("follows pods through an EndpointSlice watch (ADDED, MODIFIED, DELETED)", async () => {
    let watchUrl = "";
    const base = await listen((req, res) => {
      if (!req.url?.includes("watch=true")) {
        res.writeHead(404).end();
        return;
      }
      watchUrl = req.url;
      res.writeHead(200, { "content-type": "application/json" });
      const send = (type: string, object: unknown) => res.write(`${JSON.stringify({ type, object })}\n`);
      send("ADDED", slice("hello-abc", [{ ip: "10.0.0.7", pod: "hello-1", ready: false }]));
      setTimeout(
        () =>
          send(
            "MODIFIED",
            slice("hello-abc", [
              { ip: "10.0.0.7", pod: "hello-1", ready: true },
              { ip: "10.0.0.8", pod: "hello-2", ready: false },
            ]),
          ),
        30,
      );
      setTimeout(() => send("DELETED", slice("hello-abc", [])), 60);
    });
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: "fake", server: base, skipTLSVerify: true }],
      users: [{ name: "u", token: "t" }],
      contexts: [{ name: "ctx", cluster: "fake", user: "u" }],
      currentContext: "ctx",
    });
    const scaler = new KubernetesScaler({ kubeConfig: kc, rewatchMs: 10_000 });
    cleanups.push(() => scaler.close());
    const updates: PodInfo[][] = [];
    scaler.register({
      ...rev,
      kubernetesNamespace: "serving",
      deployment: "hello",
      service: "hello-private",
    });
    scaler.subscribe(rev, (pods) => updates.push(pods));
    await until(() => (updates.length >= 3 ? true : undefined));
    expect(decodeURIComponent(watchUrl)).toContain(
      "/apis/discovery.k8s.io/v1/namespaces/serving/endpointslices?",
    );
    expect(decodeURIComponent(watchUrl)).toContain("labelSelector=kubernetes.io/service-name=hello-private");
    expect(updates[0]).toEqual([
      {
        name: "hello-1",
        address: "10.0.0.7:8012",
        metricsUrl: "http://10.0.0.7:9090/metrics",
        ready: false,
        startedAt: 0,
      },
    ]);
    expect(updates[1]?.map((p) => [p.name, p.ready])).toEqual([
      ["hello-1", true],
      ["hello-2", false],
    ]);
    expect(updates[2]).toEqual([]);
  });
});

describe("WebhookScaler", () => {
  it("POSTs the signed thaw.scale/v1 body and marks the static endpoints ready while above zero", async () => {
    const calls: { body: string; auth?: string; type?: string; signed: boolean }[] = [];
    const base = await listen((req, res, body) => {
      const headers = new Headers(req.headers as Record<string, string>);
      void verifyScaleWebhook(SECRET, headers, body, Date.now()).then((v) => {
        calls.push({
          body,
          auth: req.headers.authorization,
          type: req.headers["content-type"],
          signed: v.ok,
        });
        res.writeHead(204).end();
      });
    });
    const scaler = new WebhookScaler({ secret: SECRET });
    scaler.register({
      ...rev,
      url: `${base}/scale`,
      headers: { authorization: "Bearer x" },
      endpoints: ["10.1.0.5:8012"],
    });
    expect(scaler.pods(rev).map((p) => p.ready)).toEqual([false]);
    await scaler.scale(rev, 2);
    expect(JSON.parse(calls[0]?.body ?? "")).toEqual({
      version: "thaw.scale/v1",
      namespace: "default",
      name: "hello",
      desiredScale: 2,
      reason: "thaw-autoscaler: desired scale 2",
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(calls[0]).toMatchObject({ auth: "Bearer x", type: "application/json", signed: true });
    expect(scaler.pods(rev)).toEqual([
      { name: "10.1.0.5:8012", address: "10.1.0.5:8012", ready: true, startedAt: 0 },
    ]);
  });

  it("reports a non-2xx answer as a failed scale, after retrying a 5xx", async () => {
    let n = 0;
    const base = await listen((_req, res) => {
      n++;
      res.writeHead(500).end("no");
    });
    const scaler = new WebhookScaler({ secret: SECRET, backoffMs: 1 });
    scaler.register({ ...rev, url: base, endpoints: [] });
    await expect(scaler.scale(rev, 1)).rejects.toThrow(/answered 500/);
    expect(n).toBe(4);
  });
});
