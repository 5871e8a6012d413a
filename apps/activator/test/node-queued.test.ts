import { createServer, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { defaultRevisionConfig, type StaticRevision } from "../src/node/config.js";
import { type RunningActivator, startActivator } from "../src/node/server.js";
import type { RevisionConfig } from "../src/ports.js";
import { StaticEndpointSource } from "../src/static-sources.js";
import { testActivatorConfig } from "./activator-config.js";
import { type Backend, startBackend } from "./backends.js";

// Requests held while a revision has no free slot wait at the node:http level (src/node/fast-path.ts) when
// they have no body, and through the portable app otherwise. Each behaviour below is checked on both, with a
// real activator and real loopback pods: the answers must be the same.
const KEY = { namespace: "default", name: "held-00001" };
const REV = { "knative-serving-namespace": KEY.namespace, "knative-serving-revision": KEY.name };
const PATHS = [
  { name: "node-level wait (GET)", method: "GET", body: undefined },
  { name: "portable path (POST with a body)", method: "POST", body: "x" },
] as const;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function activator(cfg: Partial<RevisionConfig>, endpoints: StaticEndpointSource) {
  const rev: StaticRevision = { ...KEY, ...defaultRevisionConfig, ...cfg, endpoints: [] };
  const a: RunningActivator = await startActivator(testActivatorConfig([rev]), {
    endpoints,
    scaler: { poke() {} },
  });
  cleanup.push(() => a.close());
  return a;
}

async function backend(): Promise<Backend> {
  const b = await startBackend();
  cleanup.push(() => b.close());
  return b;
}

/** One request on its own connection; `abort()` closes that connection before any answer. */
function send(port: number, method: string, path: string, body: string | undefined) {
  let abort = () => {};
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, method, path, agent: false, headers: REV }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on("error", reject);
      abort = () => req.destroy();
      req.end(body);
    },
  );
  return { answer, abort: () => abort() };
}

/** Polls until `queued` requests are counted as queued for the revision (bounded: 10 s). */
async function queuedReaches(a: RunningActivator, queued: number) {
  for (let i = 0; i < 500; i++) {
    if (a.telemetry.snapshot().queued >= queued) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`only ${a.telemetry.snapshot().queued} of ${queued} queued after 10 s`);
}

describe("requests held for a cold revision (node-level wait and portable path)", () => {
  it.each(PATHS)("queue full: 503, Retry-After and Knative's text: $name", async ({ method, body }) => {
    const endpoints = new StaticEndpointSource();
    const a = await activator({ containerConcurrency: 1, maxQueue: 2 }, endpoints);
    const held = [send(a.port, method, "/1", body), send(a.port, method, "/2", body)];
    await queuedReaches(a, 2);
    const r = await send(a.port, method, "/3", body).answer;
    expect(r.status).toBe(503);
    expect(r.body).toBe("pending request queue full\n");
    expect(r.headers["retry-after"]).toMatch(/^\d+$/);
    expect(a.telemetry.snapshot().rejected).toBe(1);
    // The two held ones are still served once a pod appears.
    const b = await backend();
    endpoints.set(KEY, [b.addr]);
    const served = await Promise.all(held.map((h) => h.answer));
    expect(served.map((s) => s.status)).toEqual([200, 200]);
  });

  it.each(PATHS)("the revision timeout passes while held: 504: $name", async ({ method, body }) => {
    const a = await activator({ timeoutSeconds: 1 }, new StaticEndpointSource());
    const t0 = Date.now();
    const r = await send(a.port, method, "/late", body).answer;
    expect(r.status).toBe(504);
    expect(r.body).toBe("activator request timeout");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
  });

  it.each(PATHS)(
    "a client that leaves while held frees its place, and the pod never sees it: $name",
    async ({ method, body }) => {
      const endpoints = new StaticEndpointSource();
      const a = await activator({ containerConcurrency: 1, maxQueue: 1 }, endpoints);
      const gone = send(a.port, method, "/gone", body);
      gone.answer.catch(() => {});
      await queuedReaches(a, 1);
      gone.abort();
      // Its place is free again: the next one queues (no 503), and is the only one the pod gets.
      let next: ReturnType<typeof send> | undefined;
      // (Until the activator has seen the close, a 503 may come back: then try again.)
      for (let i = 0; i < 20 && next === undefined; i++) {
        const attempt = send(a.port, method, "/next", body);
        const early = await Promise.race([
          attempt.answer,
          new Promise((r) => setTimeout(() => r(undefined), 1000)),
        ]);
        if (early === undefined) next = attempt;
        else expect((early as { status: number }).status).toBe(503);
      }
      expect(next).toBeDefined();
      const b = await backend();
      endpoints.set(KEY, [b.addr]);
      const r = await (next as ReturnType<typeof send>).answer;
      expect(r.status).toBe(200);
      expect(b.seen.map((s) => s.url)).toEqual(["/next"]);
    },
  );

  it.each(PATHS)(
    "held requests reach a one-slot pod in arrival order, cold ones with Server-Timing: $name",
    async ({ method, body }) => {
      const endpoints = new StaticEndpointSource();
      const a = await activator({ containerConcurrency: 1 }, endpoints);
      const held = [];
      for (let i = 0; i < 8; i++) {
        held.push(send(a.port, method, `/${i}`, body));
        await queuedReaches(a, i + 1);
      }
      const b = await backend();
      endpoints.set(KEY, [b.addr]);
      const answers = await Promise.all(held.map((h) => h.answer));
      expect(answers.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(b.seen.map((s) => s.url)).toEqual(held.map((_, i) => `/${i}`));
      expect(b.seen[0]?.headers["k-proxy-request"]).toBe("activator");
      expect(b.seen[0]?.headers["knative-serving-revision"]).toBeUndefined();
      expect(answers[0]?.headers["server-timing"]).toMatch(
        /^queued;dur=\d+, scale;dur=\d+, ready;dur=\d+, upstream;dur=\d+$/,
      );
    },
  );

  it.each(PATHS)(
    "300 clients that leave at once while held never reach the pod, and hold no slot: $name",
    async ({ method, body }) => {
      const endpoints = new StaticEndpointSource();
      const a = await activator({ containerConcurrency: 10 }, endpoints);
      const pod = await latchedPod();
      const gone = Array.from({ length: 300 }, (_, i) => send(a.port, method, `/gone${i}`, body));
      for (const g of gone) g.answer.catch(() => {});
      await queuedReaches(a, 300);
      // The pod appears, but its readiness answer waits until every client has left: the grants race the closes.
      endpoints.set(KEY, [pod.addr]);
      await until(() => pod.probes.length > 0, "the activator to probe the pod");
      for (const g of gone) g.abort();
      pod.ready();
      const t0 = Date.now();
      const next = await send(a.port, method, "/next", body).answer;
      const reached = pod.seen.filter((u) => u.startsWith("/gone")).length;
      process.stderr.write(`held and gone (activator, ${method}): ${reached} of 300 reached the pod\n`);
      expect(next.status).toBe(200);
      expect(reached).toBe(0);
      // No slot kept by a gone one: a request after them is served at once, not after a timeout.
      expect(Date.now() - t0).toBeLessThan(5_000);
    },
    60_000,
  );
});

describe("upgrades held for a cold revision (websockets)", () => {
  it("300 clients that leave at once while held never reach the pod", async () => {
    const endpoints = new StaticEndpointSource();
    const a = await activator({ containerConcurrency: 10 }, endpoints);
    const pod = await latchedPod();
    const gone = await Promise.all(Array.from({ length: 300 }, (_, i) => upgradeHead(a.port, `/gone${i}`)));
    await until(async () => (await queueDepth(a.port)) === 300, "300 upgrades waiting");
    endpoints.set(KEY, [pod.addr]);
    await until(() => pod.probes.length > 0, "the activator to probe the pod");
    for (const s of gone) s.destroy();
    pod.ready();
    const next = await send(a.port, "GET", "/next", undefined).answer;
    const reached = pod.seen.filter((u) => u.startsWith("/gone")).length;
    process.stderr.write(`held and gone (activator, upgrade): ${reached} of 300 reached the pod\n`);
    expect(next.status).toBe(200);
    expect(reached).toBe(0);
    await until(async () => (await queueDepth(a.port)) === 0, "no upgrade left waiting");
  }, 60_000);
});

/** Opens a connection and sends a websocket upgrade head for the revision; the socket is returned unread. */
async function upgradeHead(port: number, path: string): Promise<net.Socket> {
  const s = net.connect(port, "127.0.0.1");
  await new Promise<void>((r) => s.once("connect", () => r()));
  s.on("error", () => {});
  const rev = Object.entries(REV)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  s.write(`GET ${path} HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n${rev}\r\n`);
  return s;
}

/** The revision's queue depth from the activator's /metrics (requests and upgrades waiting for a slot). */
async function queueDepth(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const m = /^thaw_activator_queue_depth\{[^}]*revision="held-00001"[^}]*\} (\d+)/m.exec(text);
  return Number(m?.[1] ?? 0);
}

/** A pod whose readiness answer waits for `ready()`; every other request is answered and recorded. */
async function latchedPod() {
  const seen: string[] = [];
  const probes: ServerResponse[] = [];
  let isReady = false;
  const server = createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") {
      if (isReady) res.end("queue");
      else probes.push(res);
      return;
    }
    seen.push(req.url ?? "");
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  // An upgrade is recorded and refused (the activator relays the refusal as an ordinary answer).
  server.on("upgrade", (req, socket) => {
    seen.push(req.url ?? "");
    socket.end("HTTP/1.1 426 Upgrade Required\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return {
    addr: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    probes,
    ready() {
      isReady = true;
      for (const p of probes.splice(0)) p.end("queue");
    },
  };
}

/** Polls `ok` until it holds (bounded: 10 s). */
async function until(ok: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; i < 500; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
