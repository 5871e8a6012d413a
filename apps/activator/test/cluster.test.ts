import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { systemClock } from "@thaw/clock";
import { EmulatedApiServer, endpointSlice, waitFor } from "@thaw/kubernetes/node/testing";
import { decodeWireStatMessages, type FirstByteNote, parseFirstByteNote } from "@thaw/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { clusterParts } from "../src/node/cluster.js";
import { readConfig } from "../src/node/config.js";
import { type RunningActivator, startActivator } from "../src/node/server.js";
import { type Backend, startBackend } from "./backends.js";

const MAIN = fileURLToPath(new URL("../dist/node/main.js", import.meta.url));
const REV = { "knative-serving-namespace": "default", "knative-serving-revision": "hello" };

/** A kubeconfig for the emulator and a thaw.config.yaml using it. */
async function files(dir: string, api: EmulatedApiServer, containerConcurrency = 2, extra: string[] = []) {
  const kubeconfig = join(dir, "kubeconfig.yaml");
  await writeFile(kubeconfig, api.kubeconfigYaml());
  const config = join(dir, "thaw.config.yaml");
  await writeFile(
    config,
    [
      "services:",
      "  - name: hello",
      `    containerConcurrency: ${containerConcurrency}`,
      ...extra,
      "    kubernetes:",
      "      deployment: hello",
      "      namespace: apps",
      "      service: hello-private",
      `      kubeconfig: ${kubeconfig}`,
    ].join("\n"),
  );
  return config;
}

describe("activator with --config against the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let dir: string;
  const backends: Backend[] = [];
  let child: ChildProcess | undefined;
  let running: RunningActivator | undefined;

  /** The activator on `config` in namespace thaw, finding its autoscaler through the Service thaw-autoscaler. */
  const startBehindAutoscalerService = async (config: string): Promise<RunningActivator> => {
    const read = readConfig(["--config", config, "--port", "0", "--host", "127.0.0.1"], {
      THAW_AUTOSCALER_SERVICE: "thaw-autoscaler",
      POD_NAMESPACE: "thaw",
    });
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    const parts = await clusterParts(read.config, { clock: systemClock });
    if (!parts.ok || !parts.value) throw new Error("no cluster parts");
    return startActivator(read.config, parts.value.overrides);
  };

  /** The autoscaler's Service lists one replica: the stat socket `wss`. */
  const listAutoscaler = (wss: WebSocketServer) =>
    api.apply(
      "endpointslices",
      "thaw",
      endpointSlice({
        service: "thaw-autoscaler",
        port: (wss.address() as import("node:net").AddressInfo).port,
        endpoints: [{ ip: "127.0.0.1", pod: "as-0", uid: "as0" }],
      }),
    );

  /** hello's Service lists one ready pod, `hello-1` on `port`. */
  const listHello = (port: number) =>
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({ service: "hello-private", port, endpoints: [{ ip: "127.0.0.1", pod: "hello-1" }] }),
    );

  beforeEach(async () => {
    // Pods here are local processes on loopback, addresses a real API server refuses: accepted on purpose.
    api = new EmulatedApiServer({
      token: "emulator-token",
      bookmarkIntervalMs: 0,
      acceptLoopbackEndpoints: true,
    });
    await api.start();
    dir = await mkdtemp(join(tmpdir(), "thaw-activator-k8s-"));
  });
  afterEach(async () => {
    child?.kill("SIGKILL");
    child = undefined;
    await running?.close();
    running = undefined;
    for (const b of backends.splice(0)) await b.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("thaw-activator learns the revision from thaw.config.yaml and its pod from an EndpointSlice: /v1/activate answers", async () => {
    const pod = await startBackend();
    backends.push(pod);
    const config = await files(dir, api);
    // A ServiceAccount that may not read Services: one warning, no retry loop, pods still served.
    api.failNext({ path: "/api/v1/namespaces/apps/services", watch: false }, { status: 403, count: 1000 });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      THAW_ACTIVATOR_PORT: "0",
      THAW_ACTIVATOR_HOST: "127.0.0.1",
    };
    env.THAW_REVISIONS = "";
    child = spawn(process.execPath, [MAIN, "--config", config], { env, stdio: ["ignore", "ignore", "pipe"] });
    let log = "";
    child.stderr?.on("data", (d: Buffer) => {
      log += d.toString();
    });
    // A loaded CI machine can take many seconds to start a process that loads the Kubernetes client.
    await waitFor(() => /"msg":"listening"/.test(log), "the activator to listen", 45_000);
    const port = Number(/"port":(\d+)/.exec(log)?.[1]);
    expect(log).toMatch(/"revisions":1/);
    const activate = (name: string, timeoutMs = 8000) =>
      fetch(`http://127.0.0.1:${port}/v1/activate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ namespace: "default", name, timeoutMs }),
      });
    expect((await activate("nope")).status).toBe(404);
    // Waiting before any pod exists; the pod then appears in the Service's slice, not ready yet.
    const waiting = activate("hello");
    await waitFor(() => api.watches.length >= 1, "the EndpointSlice watch");
    api.apply(
      "endpointslices",
      "apps",
      endpointSlice({
        service: "hello-private",
        port: pod.port,
        endpoints: [{ ip: "127.0.0.1", pod: "hello-1", ready: false }],
      }),
    );
    const r = await waiting;
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ endpoints: [pod.addr], coldStart: true });
    const proxied = await fetch(`http://127.0.0.1:${port}/x`, { headers: REV });
    expect(proxied.status).toBe(200);
    expect(await proxied.text()).toBe("GET /x ");
    expect(log.match(/no ClusterIP fallback for it/g)?.length).toBe(1);
    expect(log).toContain("apps/hello-private");
  }, 90_000);

  it("splits a revision's pods among the activator replicas its own Service lists (subsetting)", async () => {
    const slow = (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => {
      setTimeout(() => {
        res.writeHead(200, { "x-backend": String(req.socket.localPort) });
        res.end("ok");
      }, 300);
    };
    const pods = [await startBackend(slow), await startBackend(slow)];
    backends.push(...pods);
    const read = readConfig(["--config", await files(dir, api, 1), "--port", "0", "--host", "127.0.0.1"], {
      THAW_ACTIVATOR_SERVICE: "thaw-activator",
      POD_NAMESPACE: "thaw",
      POD_IP: "127.0.0.1",
    });
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    const parts = await clusterParts(read.config, { clock: systemClock });
    if (!parts.ok || !parts.value) throw new Error("no cluster parts");
    running = await startActivator(read.config, parts.value.overrides);
    const activators = (ips: string[]) =>
      api.apply(
        "endpointslices",
        "thaw",
        endpointSlice({
          service: "thaw-activator",
          port: 8012,
          endpoints: ips.map((ip) => ({ ip, pod: `act-${ip}` })),
        }),
      );
    activators(["127.0.0.1", "127.0.0.2"]);
    // Two pods on different ports: one slice per port, as the Service would have if they differed.
    for (const [i, p] of pods.entries()) {
      api.apply(
        "endpointslices",
        "apps",
        endpointSlice({
          service: "hello-private",
          name: `hello-${i}`,
          port: p.port,
          endpoints: [{ ip: "127.0.0.1", pod: `hello-${i}`, uid: `u${i}` }],
        }),
      );
    }
    const port = running.port;
    const hit = async () => {
      const r = await fetch(`http://127.0.0.1:${port}/`, { headers: REV });
      expect(r.status).toBe(200);
      return r.headers.get("x-backend");
    };
    /** Backends two requests at once land on (containerConcurrency 1: one per pod at a time). */
    const pair = async () => new Set(await Promise.all([hit(), hit()]));
    await waitFor(() => api.watches.length >= 1, "the activator Service watch");
    expect((await hit()) !== null).toBe(true);
    // This activator is index 0 of 2: it owns one of the two pods, and capacity for one request.
    for (let i = 0; i < 3; i++) expect((await pair()).size).toBe(1);
    activators(["127.0.0.1"]);
    let size = 0;
    for (let i = 0; i < 20 && size < 2; i++) size = (await pair()).size;
    expect(size).toBe(2);
  });
  it("falls back to the Service's ClusterIP when its pods answer the probe like a mesh (d.3), and routes through it", async () => {
    const http = await import("node:http");
    const serve = async (probeStatus: number, body: string) => {
      const hits: string[] = [];
      const server = http.createServer((req, res) => {
        hits.push(req.headers["k-network-probe"] === "queue" ? "probe" : "request");
        if (req.headers["k-network-probe"] === "queue") res.writeHead(probeStatus).end(body);
        else res.writeHead(200).end(`via ${probeStatus === 200 ? "clusterip" : "pod"}`);
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const port = (server.address() as import("node:net").AddressInfo).port;
      backends.push({
        server,
        port,
        addr: `127.0.0.1:${port}`,
        seen: [],
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
      return { port, hits };
    };
    const meshPod = await serve(503, "no healthy upstream");
    const clusterIP = await serve(200, "queue");
    const read = readConfig(["--config", await files(dir, api), "--port", "0", "--host", "127.0.0.1"], {});
    if (!read.ok) throw new Error(JSON.stringify(read.issues));
    const parts = await clusterParts(read.config, { clock: systemClock });
    if (!parts.ok || !parts.value) throw new Error("no cluster parts");
    running = await startActivator(read.config, parts.value.overrides);
    // The emulator runs no controllers: the test writes the Service (as the API holds it once its
    // ClusterIP is allocated) and its EndpointSlice. 127.0.0.1 stands in for the ClusterIP.
    api.apply("services", "apps", {
      metadata: { name: "hello-private" },
      spec: { clusterIP: "127.0.0.1", ports: [{ name: "http", port: clusterIP.port, protocol: "TCP" }] },
    });
    listHello(meshPod.port);
    const r = await fetch(`http://127.0.0.1:${running.port}/x`, { headers: REV });
    expect(`${r.status} ${await r.text()}`).toBe("200 via clusterip");
    expect(meshPod.hits.filter((h) => h === "request")).toEqual([]);
    expect(meshPod.hits.length).toBeGreaterThan(0);
    expect(clusterIP.hits).toContain("probe");
  }, 60_000);

  it("sends stats to every autoscaler replica its Service lists", async () => {
    const replicas = await Promise.all(
      [0, 1].map(async () => {
        const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
        await new Promise<void>((r) => wss.once("listening", () => r()));
        const got: string[] = [];
        wss.on("connection", (ws) =>
          ws.on("message", (data: Buffer) => {
            const d = decodeWireStatMessages(new Uint8Array(data));
            if (d.ok) for (const m of d.value) got.push(`${m.namespace}/${m.name}`);
          }),
        );
        return { wss, got, port: (wss.address() as import("node:net").AddressInfo).port };
      }),
    );
    try {
      const pod = await startBackend();
      backends.push(pod);
      running = await startBehindAutoscalerService(await files(dir, api));
      for (const [i, r] of replicas.entries()) {
        api.apply(
          "endpointslices",
          "thaw",
          endpointSlice({
            service: "thaw-autoscaler",
            name: `as-${i}`,
            port: r.port,
            endpoints: [{ ip: "127.0.0.1", pod: `as-${i}`, uid: `as${i}` }],
          }),
        );
      }
      listHello(pod.port);
      await new Promise((r) => setTimeout(r, 300));
      const res = await fetch(`http://127.0.0.1:${running.port}/`, { headers: REV });
      expect(res.status).toBe(200);
      await waitFor(
        () => replicas.every((r) => r.got.length > 0),
        "stats at both autoscaler replicas",
        10_000,
      );
      for (const r of replicas) expect(r.got).toContain("default/hello");
    } finally {
      for (const r of replicas) {
        for (const c of r.wss.clients) c.terminate();
        await new Promise<void>((done) => r.wss.close(() => done()));
      }
    }
  });

  it("tells the autoscaler replicas a cold start's first byte (a text frame), once per cold start", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((r) => wss.once("listening", () => r()));
    const notes: FirstByteNote[] = [];
    let binaryFrames = 0;
    wss.on("connection", (ws) =>
      ws.on("message", (data: Buffer, isBinary: boolean) => {
        if (isBinary) binaryFrames++;
        else notes.push(parseFirstByteNote(String(data)) as FirstByteNote);
      }),
    );
    try {
      running = await startBehindAutoscalerService(await files(dir, api));
      listAutoscaler(wss);
      // A request while hello has no pod: held until one is listed and answers the activator's probe.
      const sent = Date.now();
      const held = fetch(`http://127.0.0.1:${running.port}/`, { headers: REV });
      await waitFor(() => binaryFrames > 0, "the cold request's poke", 10_000);
      const pod = await startBackend();
      backends.push(pod);
      listHello(pod.port);
      const res = await held;
      const answered = Date.now();
      expect(res.status).toBe(200);
      await res.text();
      await waitFor(() => notes.length > 0, "the first-byte note", 10_000);
      expect(notes[0]).toMatchObject({ type: "firstByte", namespace: "default", name: "hello" });
      expect(notes[0]?.at).toBeGreaterThanOrEqual(sent);
      expect(notes[0]?.at).toBeLessThanOrEqual(answered);
      // A warm request is no cold start: once a stat frame sent after it has arrived (one link, in order),
      // still the one note.
      expect((await fetch(`http://127.0.0.1:${running.port}/`, { headers: REV })).status).toBe(200);
      const after = binaryFrames;
      await waitFor(() => binaryFrames > after, "a stat frame after the warm request", 10_000);
      expect(notes).toHaveLength(1);
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((done) => wss.close(() => done()));
    }
  });

  it("a cold /v1/activate (a request the hook holds) reaches the autoscaler as a one-request stat", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((r) => wss.once("listening", () => r()));
    const got: { rev: string; concurrency: number }[] = [];
    wss.on("connection", (ws) =>
      ws.on("message", (data: Buffer) => {
        const d = decodeWireStatMessages(new Uint8Array(data));
        if (d.ok)
          for (const m of d.value)
            got.push({
              rev: `${m.namespace}/${m.name}`,
              concurrency: m.stat?.averageConcurrentRequests ?? 0,
            });
      }),
    );
    try {
      running = await startBehindAutoscalerService(await files(dir, api));
      listAutoscaler(wss);
      await new Promise((r) => setTimeout(r, 300));
      // No pod and no proxied request: only the activate call says someone waits.
      const waiting = fetch(`http://127.0.0.1:${running.port}/v1/activate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ namespace: "default", name: "hello", timeoutMs: 500 }),
      });
      await waitFor(
        () => got.some((g) => g.rev === "default/hello" && g.concurrency >= 1),
        "the poke",
        10_000,
      );
      await waiting;
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((done) => wss.close(() => done()));
    }
  });

  it("answers held requests at once with ERR_REVISION_FAILED when an autoscaler replica notes the revision failing", async () => {
    // An autoscaler replica as the activator meets it: a stat socket that tells each connection the
    // revisions' current pod problems (text frames), as thaw-autoscaler's does from its pod watch.
    const cause =
      'container user-container cannot start (ImagePullBackOff): Back-off pulling image "shop/no-such:1"';
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((r) => wss.once("listening", () => r()));
    let stats = 0;
    wss.on("connection", (ws) => {
      ws.send(
        JSON.stringify({
          type: "problem",
          namespace: "default",
          name: "hello",
          severity: "failing",
          message: cause,
        }),
      );
      ws.on("message", () => {
        stats++;
      });
    });
    try {
      const timeoutSeconds = 30;
      const config = await files(dir, api, 2, [`    timeoutSeconds: ${timeoutSeconds}`]);
      running = await startBehindAutoscalerService(config);
      listAutoscaler(wss);
      // No pod ever becomes ready: a proxied request and one the hook holds through /v1/activate both wait,
      // and are reported each second until the link to the replica is up and its note arrives.
      const began = Date.now();
      const proxied = fetch(`http://127.0.0.1:${running.port}/x`, { headers: REV });
      const activated = fetch(`http://127.0.0.1:${running.port}/v1/activate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ namespace: "default", name: "hello", timeoutMs: timeoutSeconds * 1000 }),
      });
      // The proxied one in Knative's plain text, the hook's /v1/activate call as the API's JSON.
      const plain = await proxied;
      expect(plain.status).toBe(503);
      expect(await plain.text()).toBe(`${cause}\n`);
      const held = await activated;
      expect(held.status).toBe(503);
      const body = (await held.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("ERR_REVISION_FAILED");
      expect(body.error.message).toBe(`revision "default/hello" is failing: ${cause}`);
      // A request that comes while the revision stays failing is answered at once too.
      const later = await fetch(`http://127.0.0.1:${running.port}/y`, { headers: REV });
      expect([later.status, await later.text()]).toEqual([503, `${cause}\n`]);
      // Answered once the note came, long before the revision's timeout.
      expect(Date.now() - began).toBeLessThan((timeoutSeconds * 1000) / 2);
      expect(stats).toBeGreaterThan(0);
    } finally {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((done) => wss.close(() => done()));
    }
  }, 60_000);
});
