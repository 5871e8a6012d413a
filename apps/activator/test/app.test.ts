import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { createActivatorApp } from "../src/app.js";
import {
  type ActivatorDeps,
  type Forwarder,
  type RevisionConfig,
  UpstreamError,
  type UpstreamRequest,
} from "../src/ports.js";
import { FakeCoordinator, mapDirectory, RecordingReporter, testConfig } from "./fakes.js";

const REV = { "knative-serving-namespace": "default", "knative-serving-revision": "hello-00001" };

function setup(
  opts: { config?: Partial<RevisionConfig>; forward?: Forwarder; token?: string; healthy?: boolean } = {},
) {
  const clock = new ManualClock(1_000_000);
  const coordinator = new FakeCoordinator(clock);
  const seen: { dest: string; req: UpstreamRequest; body: string }[] = [];
  const forward: Forwarder =
    opts.forward ??
    (async (dest, req) => {
      const body = req.body === null ? "" : await new Response(req.body).text();
      seen.push({ dest, req, body });
      return { status: 200, headers: new Headers({ "x-from": dest }), body: new Response(`ok ${dest}`).body };
    });
  const reporter = new RecordingReporter();
  const deps: ActivatorDeps = {
    revisions: mapDirectory({ "default/hello-00001": opts.config ?? {} }),
    coordinator,
    forward,
    clock,
    reporter,
    token: opts.token,
    health: () =>
      opts.healthy === false ? { ok: false, reason: "received SIGTERM from kubelet" } : { ok: true },
  };
  const { app, telemetry } = createActivatorApp(deps);
  const gate = coordinator.gate(
    { namespace: "default", name: "hello-00001" },
    { ...testConfig, ...opts.config },
  );
  return { app, clock, coordinator, gate, seen, reporter, telemetry };
}

describe("probe contract (knative-spec a.3, activator order)", () => {
  type H = Record<string, string>;
  it.each<{ name: string; headers: H; healthy: boolean; status: number; body: string }>([
    {
      name: "kubelet probe, healthy",
      headers: { "user-agent": "kube-probe/1.30" },
      healthy: true,
      status: 200,
      body: "",
    },
    {
      name: "kubelet probe, draining",
      headers: { "user-agent": "kube-probe/1.30" },
      healthy: false,
      status: 500,
      body: "received SIGTERM from kubelet\n",
    },
    {
      name: "K-Kubelet-Probe header counts as kubelet",
      headers: { "k-kubelet-probe": "1" },
      healthy: true,
      status: 200,
      body: "",
    },
    {
      name: "kubelet wins over a network probe",
      headers: { "user-agent": "kube-probe/1", "k-network-probe": "probe" },
      healthy: true,
      status: 200,
      body: "",
    },
    {
      name: "network probe without hash",
      headers: { "k-network-probe": "probe" },
      healthy: true,
      status: 400,
      body: 'a probe request must contain a non-empty "K-Network-Hash" header\n',
    },
    {
      name: "activator probe",
      headers: { "k-network-probe": "activator" },
      healthy: true,
      status: 200,
      body: "activator",
    },
    {
      name: "queue probe sent to the activator",
      headers: { "k-network-probe": "queue" },
      healthy: true,
      status: 400,
      body: 'unexpected probe header value: "queue"\n',
    },
    {
      name: "probe value is html-escaped",
      headers: { "k-network-probe": `<a href="x">&'` },
      healthy: true,
      status: 400,
      body: 'unexpected probe header value: "&lt;a href=&#34;x&#34;&gt;&amp;&#39;"\n',
    },
  ])("$name", async ({ headers, healthy, status, body }) => {
    const { app } = setup({ healthy });
    const r = await app.request("http://activator/healthz", { headers: { ...REV, ...headers } });
    expect(r.status).toBe(status);
    expect(await r.text()).toBe(body);
  });

  it("network probe echoes the hash", async () => {
    const { app } = setup();
    const r = await app.request("http://activator/", {
      headers: { "k-network-probe": "probe", "k-network-hash": "abc123" },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("k-network-hash")).toBe("abc123");
  });
});

describe("request path", () => {
  it("forwards with K-Proxy-Request, K-Original-Host, no revision headers, no K-Network-Hash", async () => {
    const { app, gate, seen, reporter } = setup();
    gate.setReady(["10.0.0.1:8012"]);
    const r = await app.request("http://hello.example.com/a/b?q=1", {
      method: "POST",
      headers: { ...REV, "k-network-hash": "h", "x-user": "u" },
      body: "payload",
    });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("ok 10.0.0.1:8012");
    const f = seen[0]!;
    expect(f.req.path).toBe("/a/b?q=1");
    expect(f.body).toBe("payload");
    expect(f.req.headers.get("k-proxy-request")).toBe("activator");
    expect(f.req.headers.get("k-original-host")).toBe("hello.example.com");
    expect(f.req.headers.get("x-user")).toBe("u");
    for (const h of ["knative-serving-revision", "knative-serving-namespace", "k-network-hash", "host"]) {
      expect(f.req.headers.has(h)).toBe(false);
    }
    expect(reporter.events).toEqual(["in default/hello-00001", "out default/hello-00001"]);
    expect(gate.inUse).toBe(0);
  });

  it("keeps an existing K-Original-Host", async () => {
    const { app, gate, seen } = setup();
    gate.setReady(["p:1"]);
    await app.request("http://h/", { headers: { ...REV, "k-original-host": "first.example" } });
    expect(seen[0]!.req.headers.get("k-original-host")).toBe("first.example");
  });

  it("takes the revision from a cluster-local host", async () => {
    const { app, gate } = setup();
    gate.setReady(["p:1"]);
    const r = await app.request("http://hello-00001.default.svc.cluster.local/");
    expect(r.status).toBe(200);
  });

  it.each<{ name: string; headers: Record<string, string>; url: string; body: RegExp }>([
    {
      name: "no revision at all",
      headers: {},
      url: "http://example.com/",
      body: /^Error getting active endpoint: no revision in the request/,
    },
    {
      name: "unknown revision",
      headers: { "knative-serving-namespace": "default", "knative-serving-revision": "nope" },
      url: "http://x/",
      body: /^Error getting active endpoint: revision\.serving\.knative\.dev "default\/nope" not found\n$/,
    },
  ])("404: $name", async ({ headers, url, body }) => {
    const { app } = setup();
    const r = await app.request(url, { headers });
    expect(r.status).toBe(404);
    expect(await r.text()).toMatch(body);
  });

  it("waits while cold and answers with Server-Timing once a pod is ready", async () => {
    const { app, gate, clock, telemetry } = setup();
    gate.phases = { beganAt: clock.now(), scaleMs: 700, readyMs: 120 };
    const p = app.request("http://h/", { headers: REV });
    await clock.advance(850);
    gate.setReady(["p:1"]);
    const r = await p;
    expect(r.status).toBe(200);
    expect(r.headers.get("server-timing")).toBe(
      "queued;dur=850, scale;dur=700, ready;dur=120, upstream;dur=0",
    );
    expect(telemetry.snapshot().queued).toBe(1);
  });

  it("503 + Retry-After when the queue is full", async () => {
    const { app, gate, telemetry } = setup({ config: { maxQueue: 1 } });
    gate.coldStarts = [2500];
    const first = app.request("http://h/", { headers: REV });
    const r = await app.request("http://h/", { headers: REV });
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("3");
    expect(await r.text()).toBe("pending request queue full\n");
    expect(telemetry.snapshot().rejected).toBe(1);
    gate.setReady(["p:1"]);
    expect((await first).status).toBe(200);
  });

  it("503 + Retry-After when the caller's grpc-timeout passes while queued", async () => {
    const { app, clock, gate } = setup();
    const p = app.request("http://h/", { headers: { ...REV, "grpc-timeout": "200m" } });
    await clock.advance(200);
    const r = await p;
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(await r.text()).toBe("context deadline exceeded\n");
    expect(gate.waiters).toHaveLength(0);
  });

  it("503 + Retry-After at once when the caller will not wait the measured start (Prefer: wait, grpc-timeout)", async () => {
    const { app, gate, telemetry } = setup();
    gate.coldStarts = [3000, 3200, 2900];
    for (const h of [{ prefer: "wait=1" }, { "grpc-timeout": "2S" }] as Record<string, string>[]) {
      // No clock advance: the answer comes before any timer could fire.
      const r = await app.request("http://h/", { headers: { ...REV, ...h } });
      expect(r.status).toBe(503);
      expect(r.headers.get("retry-after")).toBe("4");
      expect(await r.text()).toBe("context deadline exceeded\n");
    }
    expect(telemetry.snapshot().rejected).toBe(2);
    // Each started the activation (a wait on the gate), so the retry finds a pod.
    expect(gate.waiters).toHaveLength(2);
    // A caller that waits long enough is held as before.
    const patient = app.request("http://h/", { headers: { ...REV, prefer: "wait=10" } });
    gate.setReady(["p:1"]);
    expect((await patient).status).toBe(200);
  });

  it("504 activator request timeout when the revision timeout passes while queued", async () => {
    const { app, clock } = setup({ config: { timeoutSeconds: 2 } });
    const p = app.request("http://h/", { headers: REV });
    await clock.advance(2000);
    const r = await p;
    expect(r.status).toBe(504);
    expect(await r.text()).toBe("activator request timeout");
  });

  it("504 when the response-start timeout passes (the wait counts)", async () => {
    const { app, clock } = setup({ config: { responseStartTimeoutSeconds: 1 } });
    const p = app.request("http://h/", { headers: REV });
    await clock.advance(1000);
    expect((await p).status).toBe(504);
  });

  it("502 with the error text when the pod fails after the body was sent (POST, no key)", async () => {
    const { app, gate, telemetry } = setup({
      forward: async () => {
        throw new UpstreamError("socket hang up", true);
      },
    });
    gate.setReady(["p:1", "p:2"]);
    const r = await app.request("http://h/", { method: "POST", headers: REV, body: "x" });
    expect(r.status).toBe(502);
    expect(await r.text()).toBe("socket hang up\n");
    expect(gate.failures).toEqual(["p:1"]);
    expect(telemetry.snapshot().replayed).toBe(0);
    expect(gate.inUse).toBe(0);
  });

  it.each<{ name: string; method: string; headers: Record<string, string>; sent: boolean; want: number }>([
    { name: "refused POST is replayed", method: "POST", headers: {}, sent: false, want: 200 },
    { name: "reset GET is replayed", method: "GET", headers: {}, sent: true, want: 200 },
    {
      name: "reset POST with Idempotency-Key is replayed",
      method: "POST",
      headers: { "idempotency-key": "k" },
      sent: true,
      want: 200,
    },
    { name: "reset PATCH is not", method: "PATCH", headers: {}, sent: true, want: 502 },
  ])("replay: $name", async ({ method, headers, sent, want }) => {
    const bodies: string[] = [];
    const { app, gate, telemetry } = setup({
      forward: async (dest, req) => {
        bodies.push(req.body === null ? "" : await new Response(req.body).text());
        if (dest === "bad:1") throw new UpstreamError("connection reset", sent);
        return { status: 200, headers: new Headers(), body: null };
      },
    });
    gate.setReady(["bad:1", "good:1"]);
    const body = method === "GET" ? undefined : "data";
    const r = await app.request("http://h/", { method, headers: { ...REV, ...headers }, body });
    expect(r.status).toBe(want);
    if (want === 200) {
      expect(bodies).toEqual(body ? ["data", "data"] : ["", ""]);
      expect(telemetry.snapshot().replayed).toBe(1);
    }
  });

  it("a body over the cap streams once and is not replayed after bytes were pulled", async () => {
    const { app, gate } = setup({
      config: { bodyBufferCap: 4 },
      forward: async (_d, req) => {
        await new Response(req.body).text();
        throw new UpstreamError("reset", true);
      },
    });
    gate.setReady(["a:1", "b:1"]);
    const r = await app.request("http://h/", { method: "PUT", headers: REV, body: "0123456789" });
    expect(r.status).toBe(502);
    expect(gate.failures).toEqual(["a:1"]);
  });
});

describe("/v1 API", () => {
  const activate = (body: unknown, headers: Record<string, string> = {}) => ({
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

  it.each<{ name: string; headers: Record<string, string>; status: number; code: string }>([
    { name: "no token", headers: {}, status: 401, code: "ERR_UNAUTHORIZED" },
    { name: "wrong token", headers: { authorization: "Bearer nope" }, status: 401, code: "ERR_UNAUTHORIZED" },
  ])("401: $name", async ({ headers, status, code }) => {
    const { app } = setup({ token: "s3cret" });
    for (const [path, init] of [
      ["/v1/activate", activate({ namespace: "default", name: "hello-00001", timeoutMs: 10 }, headers)],
      ["/v1/watch", { headers }],
    ] as const) {
      const r = await app.request(`http://127.0.0.1${path}`, init);
      expect(r.status).toBe(status);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe(code);
    }
  });

  it.each([
    { name: "not JSON", body: "{", field: "body" },
    { name: "missing name", body: { namespace: "default", timeoutMs: 5 }, field: "name" },
    { name: "bad timeout", body: { namespace: "default", name: "x", timeoutMs: -1 }, field: "timeoutMs" },
  ])("400 names the field: $name", async ({ body, field }) => {
    const { app } = setup();
    const r = await app.request("http://127.0.0.1/v1/activate", activate(body));
    expect(r.status).toBe(400);
    const e = (await r.json()) as { error: { code: string; message: string } };
    expect(e.error.code).toBe("ERR_BAD_REQUEST");
    expect(e.error.message).toContain(field);
  });

  it("404 for an unknown revision", async () => {
    const { app } = setup();
    const r = await app.request(
      "http://127.0.0.1/v1/activate",
      activate({ namespace: "default", name: "zz", timeoutMs: 5 }),
    );
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("ERR_UNKNOWN_REVISION");
  });

  it("200 with the ready endpoints, with a valid token", async () => {
    const { app, gate } = setup({ token: "s3cret" });
    const p = app.request(
      "http://127.0.0.1/v1/activate",
      activate(
        { namespace: "default", name: "hello-00001", timeoutMs: 5000 },
        { authorization: "Bearer s3cret" },
      ),
    );
    await new Promise((r) => setTimeout(r, 5));
    gate.setReady(["10.0.0.9:8012"]);
    const r = await p;
    expect(r.status).toBe(200);
    const body = (await r.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ namespace: "default", name: "hello-00001", endpoints: ["10.0.0.9:8012"] });
  });

  it("504 ERR_ACTIVATION_TIMEOUT with Retry-After when no pod gets ready in time", async () => {
    const { app } = setup();
    const r = await app.request(
      "http://127.0.0.1/v1/activate",
      activate({ namespace: "default", name: "hello-00001", timeoutMs: 20 }),
    );
    expect(r.status).toBe(504);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("ERR_ACTIVATION_TIMEOUT");
  });

  it("503 ERR_QUEUE_FULL with Retry-After when too many callers wait", async () => {
    const { app, gate } = setup({ config: { maxQueue: 1 } });
    gate.coldStarts = [1200];
    const first = app.request(
      "http://127.0.0.1/v1/activate",
      activate({ namespace: "default", name: "hello-00001", timeoutMs: 5000 }),
    );
    await new Promise((r) => setTimeout(r, 5));
    const r = await app.request(
      "http://127.0.0.1/v1/activate",
      activate({ namespace: "default", name: "hello-00001", timeoutMs: 5000 }),
    );
    expect(r.status).toBe(503);
    expect(r.headers.get("retry-after")).toBe("2");
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe("ERR_QUEUE_FULL");
    gate.setReady(["p:1"]);
    expect((await first).status).toBe(200);
  });

  it("/v1/watch sends the known revisions, then changes, then pings", async () => {
    const { app, gate, clock } = setup();
    const r = await app.request("http://127.0.0.1/v1/watch");
    expect(r.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = r.body!.getReader();
    const dec = new TextDecoder();
    const next = async () => dec.decode((await reader.read()).value);
    expect(await next()).toBe(
      'event: endpoints\ndata: {"namespace":"default","name":"hello-00001","endpoints":[],"mode":"proxy"}\n\n',
    );
    gate.setReady(["p:1"]);
    expect(await next()).toBe(
      'event: endpoints\ndata: {"namespace":"default","name":"hello-00001","endpoints":["p:1"],"mode":"serve"}\n\n',
    );
    await clock.advance(15_000);
    expect(await next()).toBe(": ping\n\n");
    await reader.cancel();
  });

  it("/v1/status returns the counters as JSON", async () => {
    const { app } = setup();
    const r = await app.request("http://127.0.0.1/v1/status");
    expect(await r.json()).toEqual({
      queued: 0,
      rejected: 0,
      replayed: 0,
      coldStarts: 0,
      recentColdStartsMs: [],
    });
  });
});
