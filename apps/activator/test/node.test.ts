import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, request as httpRequest } from "node:http";
import net, { type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { decodeWireStatMessages, type WireStatMessage } from "@thaw/protocol";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { defaultRevisionConfig, type StaticRevision } from "../src/node/config.js";
import { type ActivatorOverrides, type RunningActivator, startActivator } from "../src/node/server.js";
import type { RevisionConfig } from "../src/ports.js";
import { StaticEndpointSource } from "../src/static-sources.js";
import { testActivatorConfig } from "./activator-config.js";
import { type Backend, freePort, startBackend } from "./backends.js";

const KEY = { namespace: "default", name: "hello-00001" };
const REV = { "knative-serving-namespace": KEY.namespace, "knative-serving-revision": KEY.name };

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function activator(
  endpoints: string[],
  cfg: Partial<RevisionConfig> = {},
  o: ActivatorOverrides = {},
  autoscalerUrl?: string,
): Promise<RunningActivator> {
  const rev: StaticRevision = { ...KEY, ...defaultRevisionConfig, ...cfg, endpoints };
  const a = await startActivator(testActivatorConfig([rev], { autoscalerUrl }), o);
  cleanup.push(() => a.close());
  return a;
}

async function backend(...args: Parameters<typeof startBackend>): Promise<Backend> {
  const b = await startBackend(...args);
  cleanup.push(() => b.close());
  return b;
}

/**
 * An activator for a revision at zero whose scaler "starts a pod" `delayMs` after each poke: a new loopback
 * backend, then listed as the revision's endpoint. `started` resolves with the first such backend.
 */
async function activatorStartingPods(delayMs: number) {
  const endpoints = new StaticEndpointSource();
  let pokes = 0;
  let resolveStarted: (b: Backend) => void = () => {};
  const started = new Promise<Backend>((r) => {
    resolveStarted = r;
  });
  const a = await activator(
    [],
    {},
    {
      endpoints,
      scaler: {
        poke() {
          pokes++;
          setTimeout(async () => {
            const b = await backend();
            resolveStarted(b);
            endpoints.set(KEY, [b.addr]);
          }, delayMs);
        },
      },
    },
  );
  return { a, started, pokes: () => pokes };
}

describe("Node activator against real loopback backends", () => {
  it("cold start: 200 concurrent requests all answered 200, none lost", async () => {
    const { a, started, pokes } = await activatorStartingPods(300);
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`http://127.0.0.1:${a.port}/r/${i}`, { headers: REV }).then(async (r) => ({
          status: r.status,
          body: await r.text(),
          timing: r.headers.get("server-timing"),
        })),
      ),
    );
    const b = await started;
    expect(results.filter((r) => r.status === 200)).toHaveLength(200);
    expect(new Set(results.map((r) => r.body)).size).toBe(200);
    expect(b.seen).toHaveLength(200);
    expect(b.seen[0]?.headers["k-proxy-request"]).toBe("activator");
    expect(b.seen[0]?.headers["knative-serving-revision"]).toBeUndefined();
    expect(pokes()).toBe(1);
    expect(results[0]?.timing).toMatch(/^queued;dur=\d+, scale;dur=\d+, ready;dur=\d+, upstream;dur=\d+$/);
    const t = a.telemetry.snapshot();
    expect(t.coldStarts).toBe(1);
    expect(t.recentColdStartsMs[0]).toBeGreaterThanOrEqual(300);
    const metrics = await (await fetch(`http://127.0.0.1:${a.port}/metrics`)).text();
    expect(metrics).toMatch(
      /thaw_activator_cold_start_seconds_count\{namespace="default",revision="hello-00001"\} 1/,
    );
    // Every one of the 200 waited for the first pod, counted under its revision.
    expect(metrics).toContain(
      `thaw_activator_requests_queued_total{namespace="default",revision="hello-00001"} ${t.queued}\n`,
    );
    expect(t.queued).toBeGreaterThan(0);
    expect(metrics).toMatch(/^# TYPE thaw_activator_queue_depth gauge$/m);
  });

  it("counts every request it takes, held or not, on the fast path and the portable one (requests_total)", async () => {
    const b = await backend();
    const a = await activator([b.addr]);
    await waitFor(async () => (await status(a, "/")) === 200);
    const before = await requestsTotal(a);
    // Three warm GETs take the Node fast path; a POST with a body takes the portable path.
    for (let i = 0; i < 3; i++) expect(await status(a, `/w/${i}`)).toBe(200);
    const post = await fetch(`http://127.0.0.1:${a.port}/p`, { method: "POST", headers: REV, body: "x" });
    await post.text();
    expect(post.status).toBe(200);
    expect((await requestsTotal(a)) - before).toBe(4);
  });

  it("a backend killed mid-flight: the request is replayed on the other pod and succeeds", async () => {
    const script = `
      const http = require("node:http");
      http.createServer((req, res) => {
        if (req.headers["k-network-probe"] === "queue") return res.end("queue");
        process.kill(process.pid, "SIGKILL");
      }).listen(0, "127.0.0.1", function () { console.log(this.address().port); });`;
    const child: ChildProcess = spawn(process.execPath, ["-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    cleanup.push(() => {
      child.kill("SIGKILL");
    });
    const [line] = (await once(child.stdout!, "data")) as [Buffer];
    const doomed = `127.0.0.1:${Number(line.toString().trim())}`;
    const good = await backend();
    const a = await activator([doomed, good.addr]);
    await waitFor(async () => (await status(a, "/")) === 200);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => fetch(`http://127.0.0.1:${a.port}/k/${i}`, { headers: REV })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(child.exitCode ?? child.signalCode).toBe("SIGKILL");
    expect(a.telemetry.snapshot().replayed).toBeGreaterThanOrEqual(1);
  });

  it("a GET the fast path replays after a pod dropped it is counted once (requests_total, the reporter's rate)", async () => {
    const flaky = await backend((_req, res) => {
      res.socket?.destroy();
    });
    const good = await backend();
    const stats: { at: number; stat: WireStatMessage["stat"] }[] = [];
    const sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const d = decodeWireStatMessages(new Uint8Array(Buffer.concat(chunks)));
        if (d.ok)
          for (const m of d.value) if (m.name === KEY.name) stats.push({ at: Date.now(), stat: m.stat });
        res.end();
      });
    });
    await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
    cleanup.push(() => new Promise((r) => sink.close(() => r())));
    const a = await activator(
      [flaky.addr, good.addr],
      {},
      {},
      `http://127.0.0.1:${(sink.address() as AddressInfo).port}`,
    );
    // The LB picks at random: send until one lands on the flaky pod first.
    let sent = 0;
    for (; sent < 30 && flaky.seen.length === 0; sent++) expect(await status(a, `/g/${sent}`)).toBe(200);
    const ended = Date.now();
    // One request reached it (twice, when its first try went on a pooled connection the pod dropped).
    expect(new Set(flaky.seen.map((r) => r.url)).size).toBe(1);
    expect(a.telemetry.snapshot().replayed).toBe(1);
    expect(await requestsTotal(a)).toBe(sent);
    // The autoscaler hears of each request once: every count is in by the first idle report after the last.
    await waitFor(() => stats.some((s) => s.at > ended && s.stat?.averageConcurrentRequests === 0));
    expect(stats.reduce((n, s) => n + (s.stat?.requestCount ?? 0), 0)).toBe(sent);
  });

  it.each([
    { name: "small POST with Idempotency-Key is replayed", size: 512, key: true, want: 200 },
    { name: "small POST without a key is not", size: 512, key: false, want: 502 },
    { name: "a POST over the cap streams once: not replayed", size: 4096, key: true, want: 502 },
  ])("body replay limits: $name", async ({ size, key, want }) => {
    // This pod reads the whole body, then drops the connection without answering.
    const flaky = await backend((_req, res) => {
      res.socket?.destroy();
    });
    const good = await backend();
    const a = await activator([flaky.addr, good.addr], { bodyBufferCap: 1024 });
    const body = "x".repeat(size);
    const headers: Record<string, string> = { ...REV, ...(key ? { "idempotency-key": "abc" } : {}) };
    // The LB picks at random: send until one lands on the flaky pod first.
    for (let i = 0; i < 30 && flaky.seen.length === 0; i++) {
      const before = flaky.seen.length;
      const r = await fetch(`http://127.0.0.1:${a.port}/b/${i}`, { method: "POST", headers, body });
      const text = await r.text();
      if (flaky.seen.length > before) {
        expect(r.status).toBe(want);
        if (want === 200) expect(text).toBe(`POST /b/${i} ${body}`);
      } else expect(r.status).toBe(200);
    }
    expect(flaky.seen.length).toBe(1);
  });

  it("websocket upgrade passes through to the pod", async () => {
    const b = await backend();
    const wss = new WebSocketServer({ server: b.server });
    wss.on("connection", (ws, req) => {
      ws.send(`hello ${req.headers["k-proxy-request"]}`);
      ws.on("message", (m, binary) => ws.send(m, { binary }));
    });
    cleanup.push(() => new Promise((r) => wss.close(() => r())));
    const a = await activator([b.addr]);
    const ws = new WebSocket(`ws://127.0.0.1:${a.port}/socket`, { headers: REV });
    const got: string[] = [];
    ws.on("message", (m) => got.push(m.toString()));
    await once(ws, "open");
    ws.send("ping-1");
    await waitFor(() => got.length === 2);
    expect(got).toEqual(["hello activator", "ping-1"]);
    ws.close(1000);
    await once(ws, "close");
  });

  it("warm path: same forward headers as the portable path, hop-by-hop headers dropped both ways", async () => {
    const b = await backend((req, res) => {
      res.writeHead(200, { "x-up": "1", "keep-alive": "timeout=5", "content-type": "text/plain" });
      res.end(`warm ${req.url}`);
    });
    const a = await activator([b.addr]);
    await waitFor(async () => (await status(a, "/")) === 200);
    b.seen.length = 0;
    const r = await fetch(`http://127.0.0.1:${a.port}/w?x=1`, {
      headers: { ...REV, "x-user": "u", "k-original-host": "orig.example" },
    });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("warm /w?x=1");
    expect(r.headers.get("x-up")).toBe("1");
    const seen = b.seen[0]!;
    expect(seen.headers["k-proxy-request"]).toBe("activator");
    expect(seen.headers["k-original-host"]).toBe("orig.example");
    expect(seen.headers["x-user"]).toBe("u");
    expect(seen.headers["knative-serving-revision"]).toBeUndefined();
    expect(seen.headers["knative-serving-namespace"]).toBeUndefined();
    const r2 = await fetch(`http://127.0.0.1:${a.port}/h`, { headers: REV });
    await r2.text();
    expect(b.seen[1]!.headers["k-original-host"]).toBe(`127.0.0.1:${a.port}`);
  });

  it.each([
    { name: "warm path (GET)", method: "GET", body: undefined },
    { name: "portable path (POST with a body)", method: "POST", body: "x" },
  ])(
    "504 activator request timeout when the pod does not answer in time: $name",
    async ({ method, body }) => {
      const b = await backend(() => {
        // never answers
      });
      const a = await activator([b.addr], { timeoutSeconds: 1 });
      await waitFor(async () => {
        const r = await fetch(`http://127.0.0.1:${a.port}/`, { headers: { "k-network-probe": "activator" } });
        return r.status === 200;
      });
      // Let the prober admit the pod, then time one request out.
      await new Promise((r) => setTimeout(r, 100));
      const t0 = Date.now();
      const r = await fetch(`http://127.0.0.1:${a.port}/slow`, { method, headers: REV, body });
      expect(r.status).toBe(504);
      expect(await r.text()).toBe("activator request timeout");
      expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    },
  );

  // Issue 26: the hop-by-hop pass ran after K-Proxy-Request and K-Original-Host were set, so a client
  // naming them in Connection removed the activator's own headers.
  it.each([
    { name: "warm path (GET)", method: "GET", body: undefined },
    { name: "portable path (POST with a body)", method: "POST", body: "x" },
  ])(
    "Connection naming the activator's own headers removes none of them: $name",
    async ({ method, body }) => {
      const b = await backend();
      const a = await activator([b.addr]);
      await waitFor(async () => (await status(a, "/")) === 200);
      b.seen.length = 0;
      const answered = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: "127.0.0.1",
            port: a.port,
            path: "/named",
            method,
            agent: false,
            headers: { ...REV, host: "app.example", connection: "k-proxy-request, k-original-host, x-user" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode ?? 0));
          },
        );
        req.on("error", reject);
        req.end(body);
      });
      expect(answered).toBe(200);
      const seen = b.seen[0]!;
      expect(seen.headers["k-proxy-request"]).toBe("activator");
      expect(seen.headers["k-original-host"]).toBe("app.example");
      expect(seen.headers.connection ?? "").not.toMatch(/k-proxy-request|k-original-host/);
    },
  );

  it("HEAD on the warm path answers headers only", async () => {
    const b = await backend((req, res) => {
      res.writeHead(200, { "content-length": "5", "x-h": "1" });
      res.end(req.method === "HEAD" ? undefined : "hello");
    });
    const a = await activator([b.addr]);
    await waitFor(async () => (await status(a, "/")) === 200);
    const r = await fetch(`http://127.0.0.1:${a.port}/h`, { method: "HEAD", headers: REV });
    expect(r.status).toBe(200);
    expect(r.headers.get("x-h")).toBe("1");
    expect(await r.text()).toBe("");
  });

  it("warm path: one kept-alive connection per pod; a pod that leaves the list has it closed", async () => {
    const sockets = new Map<string, Set<import("node:net").Socket>>();
    const pod = async () => {
      const b = await backend((req, res, _body) => {
        sockets.get(b.addr)?.add(req.socket);
        res.end(`from ${b.addr}`);
      });
      sockets.set(b.addr, new Set());
      return b;
    };
    const [p1, p2] = [await pod(), await pod()];
    const endpoints = new StaticEndpointSource([[KEY, [p1.addr]]]);
    const a = await activator([], {}, { endpoints });
    await waitFor(async () => (await status(a, "/")) === 200);
    for (let i = 0; i < 5; i++) expect(await status(a, `/k/${i}`)).toBe(200);
    const used = [...(sockets.get(p1.addr) as Set<import("node:net").Socket>)];
    expect(used).toHaveLength(1);
    endpoints.set(KEY, [p2.addr]);
    await waitFor(() => used[0]?.destroyed === true);
    await waitFor(async () => {
      const r = await fetch(`http://127.0.0.1:${a.port}/`, { headers: REV });
      return (await r.text()) === `from ${p2.addr}`;
    });
  });

  it("warm path: a client that stops reading holds the pod's writes; one that leaves frees its slot", async () => {
    const block = Buffer.alloc(1024 * 1024, 1);
    const total = 512;
    let written = 0;
    let podClosed = false;
    const b = await backend((req, res) => {
      if (req.url !== "/big") return void res.end("small");
      res.once("close", () => {
        podClosed = true;
      });
      const pump = () => {
        while (written < total && !res.destroyed) {
          written++;
          if (!res.write(block)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const a = await activator([b.addr], { containerConcurrency: 1 });
    await waitFor(async () => (await status(a, "/")) === 200);
    const req = httpRequest({ host: "127.0.0.1", port: a.port, path: "/big", headers: REV, agent: false });
    req.on("error", () => {});
    const res = await new Promise<import("node:http").IncomingMessage>((r) => req.on("response", r).end());
    res.pause();
    // The pod's writes stop once the buffers between it and the client are full.
    let last = -1;
    for (let i = 0; i < 50 && written !== last; i++) {
      last = written;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(written).toBe(last);
    expect(written).toBeLessThan(total);
    req.destroy();
    await waitFor(() => podClosed);
    // containerConcurrency 1: the next request gets the slot the departed client held.
    expect(await status(a, "/small")).toBe(200);
  });

  it("warm path: a GET the client framed with content-length 0 reaches the pod without framing", async () => {
    const b = await backend();
    const a = await activator([b.addr]);
    await waitFor(async () => (await status(a, "/")) === 200);
    b.seen.length = 0;
    const answer = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port: a.port, path: "/cl0", headers: { ...REV, "content-length": "0" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(answer).toBe(200);
    const seen = b.seen[0]!;
    expect([seen.url, seen.headers["content-length"], seen.headers["transfer-encoding"]]).toEqual([
      "/cl0",
      undefined,
      undefined,
    ]);
  });

  it.each([
    { name: "200 with content-length 0", status: 200, headers: { "content-length": "0" } },
    { name: "200 ended without a length (chunked, empty)", status: 200, headers: {} },
    { name: "204", status: 204, headers: {} },
    { name: "304", status: 304, headers: { etag: '"e"' } },
  ])("warm path: an answer with an empty body ends: $name", async ({ status: code, headers }) => {
    const b = await backend((_req, res) => {
      res.writeHead(code, headers);
      res.end();
    });
    const a = await activator([b.addr]);
    await waitFor(async () => (await status(a, "/")) === code);
    for (let i = 0; i < 3; i++) {
      const r = await fetch(`http://127.0.0.1:${a.port}/e/${i}`, {
        headers: REV,
        signal: AbortSignal.timeout(3000),
      });
      expect([r.status, await r.text()]).toEqual([code, ""]);
    }
  });

  it("SSE streams through event by event", async () => {
    let push: (s: string) => void = () => {};
    const b = await backend((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      push = (s) => res.write(s);
      res.write("data: one\n\n");
    });
    const a = await activator([b.addr]);
    const r = await fetch(`http://127.0.0.1:${a.port}/events`, { headers: REV });
    const reader = r.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n");
    push("data: two\n\n");
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: two\n\n");
    await reader.cancel();
  });
});

describe("/v1 API on the Node activator", () => {
  it("20 concurrent /v1/activate calls share one activation; /v1/watch sees the pod arrive", async () => {
    const { a, pokes } = await activatorStartingPods(200);
    const watch = await fetch(`http://127.0.0.1:${a.port}/v1/watch`);
    const reader = watch.body!.getReader();
    const dec = new TextDecoder();
    let events = "";
    const first = await reader.read();
    events += dec.decode(first.value);
    expect(events).toContain('"endpoints":[],"mode":"proxy"');
    const calls = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`http://127.0.0.1:${a.port}/v1/activate`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...KEY, timeoutMs: 5000 }),
        }).then(async (r) => ({
          status: r.status,
          body: (await r.json()) as { endpoints: string[]; coldStart: boolean; waitedMs: number },
        })),
      ),
    );
    expect(calls.map((c) => c.status)).toEqual(Array(20).fill(200));
    expect(pokes()).toBe(1);
    expect(calls[0]!.body.coldStart).toBe(true);
    expect(calls[0]!.body.endpoints).toHaveLength(1);
    expect(calls[0]!.body.waitedMs).toBeGreaterThanOrEqual(150);
    for (let i = 0; i < 20 && !events.includes('"mode":"serve"'); i++)
      events += dec.decode((await reader.read()).value);
    expect(events).toContain(`"endpoints":["${calls[0]!.body.endpoints[0]}"],"mode":"serve"`);
    await reader.cancel();
    const warm = await fetch(`http://127.0.0.1:${a.port}/v1/activate`, {
      method: "POST",
      body: JSON.stringify({ ...KEY, timeoutMs: 5000 }),
    });
    expect(await warm.json()).toMatchObject({ coldStart: false, waitedMs: 0 });
  });

  it("/v1/activate answers 504 with Retry-After when no pod gets ready in time", async () => {
    const a = await activator([`127.0.0.1:${await freePort()}`]);
    const r = await fetch(`http://127.0.0.1:${a.port}/v1/activate`, {
      method: "POST",
      body: JSON.stringify({ ...KEY, timeoutMs: 300 }),
    });
    expect(r.status).toBe(504);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(await r.json()).toMatchObject({ error: { code: "ERR_ACTIVATION_TIMEOUT" } });
  });
});

describe("stats to the autoscaler", () => {
  it.each([{ transport: "ws" }, { transport: "http" }])(
    "$transport: the cold-start poke at once, then reports every second, as protobuf WireStatMessages",
    async ({ transport }) => {
      const frames: { at: number; messages: WireStatMessage[] }[] = [];
      const record = (bytes: Uint8Array) => {
        const d = decodeWireStatMessages(bytes);
        if (d.ok) frames.push({ at: Date.now(), messages: d.value });
      };
      const sink = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on("data", (c: Buffer) => chunks.push(c));
        req.on("end", () => {
          expect(req.url).toBe("/v1/stats");
          expect(req.headers["content-type"]).toBe("application/protobuf");
          record(new Uint8Array(Buffer.concat(chunks)));
          res.end();
        });
      });
      const wss = new WebSocketServer({ server: sink });
      wss.on("connection", (ws) =>
        ws.on("message", (m: Buffer, binary) => binary && record(new Uint8Array(m))),
      );
      await new Promise<void>((r) => sink.listen(0, "127.0.0.1", r));
      cleanup.push(
        () =>
          new Promise<void>((r) => {
            wss.close();
            sink.closeAllConnections();
            sink.close(() => r());
          }),
      );
      const sinkPort = (sink.address() as AddressInfo).port;
      const b = await backend();
      const a = await activator([b.addr], {}, {}, `${transport}://127.0.0.1:${sinkPort}`);
      const t0 = Date.now();
      expect(await status(a, "/")).toBe(200);
      await waitFor(() => frames.length >= 2);
      const poke = frames[0]!;
      expect(poke.at - t0).toBeLessThan(900);
      expect(poke.messages).toEqual([
        {
          namespace: KEY.namespace,
          name: KEY.name,
          stat: expect.objectContaining({
            podName: "test-activator",
            averageConcurrentRequests: 1,
            requestCount: 1,
          }),
        },
      ]);
      expect(frames[1]!.messages[0]).toMatchObject({ namespace: KEY.namespace, name: KEY.name });
    },
  );
});

describe("drain", () => {
  it("a stream still open when the drain timeout passes is cut, and drain() returns", async () => {
    const b = await backend((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: first\n\n");
    });
    const a = await activator([b.addr]);
    await waitFor(async () => {
      const r = await fetch(`http://127.0.0.1:${a.port}/`, { headers: { "k-network-probe": "activator" } });
      return r.status === 200;
    });
    const r = await fetch(`http://127.0.0.1:${a.port}/events`, { headers: REV });
    const reader = r.body!.getReader();
    await reader.read();
    const t0 = Date.now();
    await a.drain(); // drainDelayMs 0, drainTimeoutMs 1000
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(Date.now() - t0).toBeLessThan(5000);
    await expect(reader.read()).rejects.toThrow();
  });
});

describe("websocket tunnels (issue 26)", () => {
  /** A pod whose app accepts websockets and echoes; an activator in front with `tunnelIdleMs`. */
  async function tunnelled(tunnelIdleMs: number) {
    const b = await backend();
    const wss = new WebSocketServer({ server: b.server });
    wss.on("connection", (ws) => ws.on("message", (m, binary) => ws.send(m, { binary })));
    cleanup.push(() => new Promise((r) => wss.close(() => r())));
    const rev: StaticRevision = { ...KEY, ...defaultRevisionConfig, endpoints: [b.addr] };
    const a = await startActivator(testActivatorConfig([rev], { tunnelIdleMs }));
    cleanup.push(() => a.close());
    const ws = new WebSocket(`ws://127.0.0.1:${a.port}/socket`, { headers: REV });
    await once(ws, "open");
    return { a, ws };
  }

  it("a tunnel with no byte either way for tunnelIdleMs is closed; one in use is not", async () => {
    const { a } = await tunnelled(2500);
    const idle = new WebSocket(`ws://127.0.0.1:${a.port}/socket`, { headers: REV });
    const busy = new WebSocket(`ws://127.0.0.1:${a.port}/socket`, { headers: REV });
    await Promise.all([once(idle, "open"), once(busy, "open")]);
    const t0 = Date.now();
    const ping = setInterval(() => busy.send("x"), 200);
    try {
      const closedAfter = await Promise.race([
        once(idle, "close").then(() => Date.now() - t0),
        new Promise<number>((r) => setTimeout(() => r(-1), 8000)),
      ]);
      expect(closedAfter, "the idle tunnel closed at its limit").toBeGreaterThanOrEqual(2300);
      expect(closedAfter).toBeLessThan(6000);
      expect(busy.readyState).toBe(WebSocket.OPEN);
    } finally {
      clearInterval(ping);
      idle.terminate();
      busy.terminate();
    }
  });

  it("a tunnel still open when the drain timeout passes is closed, and drain() returns", async () => {
    const { a, ws } = await tunnelled(300_000);
    const closed = once(ws, "close");
    const t0 = Date.now();
    await a.drain(); // drainDelayMs 0, drainTimeoutMs 1000
    expect(Date.now() - t0).toBeLessThan(5000);
    await closed;
  });
});

describe("drain: a connection that has sent nothing yet", () => {
  it("may still send its request for a grace after the stop, and is answered", async () => {
    const b = await backend((req, res) => {
      res.end(`late ${req.url}`);
    });
    const a = await activator([b.addr]);
    const socket = net.connect(a.port, "127.0.0.1");
    await once(socket, "connect");
    let got = "";
    socket.on("data", (d: Buffer) => {
      got += d.toString("latin1");
    });
    const closed = once(socket, "close");
    const drained = a.drain();
    // Well after the stop began, but inside SILENT_GRACE_MS: a slow client's first bytes.
    await new Promise((r) => setTimeout(r, 300));
    socket.write(
      "GET /late HTTP/1.1\r\nHost: x\r\nKnative-Serving-Namespace: default\r\n" +
        "Knative-Serving-Revision: hello-00001\r\nConnection: close\r\n\r\n",
    );
    await closed;
    expect(got).toMatch(/^HTTP\/1\.1 200 /);
    expect(got).toContain("late /late");
    await drained;
  });
});

describe("thaw-activator bin", () => {
  it("drains on SIGTERM: kubelet probe fails, in-flight requests finish, exit 0", async () => {
    const slow = await backend((req, res, body) => {
      setTimeout(() => res.end(`slow ${req.url} ${body}`), 1200);
    });
    const port = await freePort();
    const bin = fileURLToPath(new URL("../dist/node/main.js", import.meta.url));
    const child = spawn(process.execPath, [bin, "--host", "127.0.0.1", "--port", String(port)], {
      env: {
        ...process.env,
        THAW_DRAIN_DELAY_MS: "400",
        THAW_REVISIONS: JSON.stringify([{ ...KEY, endpoints: [slow.addr] }]),
      },
      stdio: ["ignore", "ignore", "pipe"],
    });
    cleanup.push(() => {
      child.kill("SIGKILL");
    });
    const base = `http://127.0.0.1:${port}`;
    const kubelet = { "user-agent": "kube-probe/1.30" };
    await waitFor(
      async () => (await fetch(base, { headers: kubelet }).catch(() => undefined))?.status === 200,
    );
    const inflight = fetch(`${base}/work`, { method: "POST", headers: REV, body: "job" });
    await waitFor(() => slow.seen.length === 1);
    child.kill("SIGTERM");
    let probeBody = "";
    await waitFor(async () => {
      const p = await fetch(base, { headers: kubelet }).catch(() => undefined);
      if (p?.status === 500) probeBody = await p.text();
      return p?.status === 500;
    });
    expect(probeBody).toBe("received SIGTERM from kubelet\n");
    const r = await inflight;
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("slow /work job");
    const [code] = (await once(child, "exit")) as [number];
    expect(code).toBe(0);
  });
});

async function status(a: RunningActivator, path: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${a.port}${path}`, { headers: REV });
  await r.text();
  return r.status;
}

/** Polls `cond` every 10 ms for at most 5 s. */
async function waitFor(cond: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met within 5 s");
}

/** The activator's thaw_activator_requests_total for KEY (0 before the first request). */
async function requestsTotal(a: RunningActivator): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${a.port}/metrics`)).text();
  const m = text.match(
    /^thaw_activator_requests_total\{namespace="default",revision="hello-00001"\} (\d+)$/m,
  );
  return Number(m?.[1] ?? 0);
}
