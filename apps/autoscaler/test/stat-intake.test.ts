import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@thaw/clock";
import { emptyStat, encodeStat, encodeWireStatMessages, type WireStatMessage } from "@thaw/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { policyFor } from "../src/policy.js";
import type { Scaler } from "../src/scalers/scaler.js";
import { type ScrapeResult, scrapeStat } from "../src/scrape.js";
import { httpScrapeStat } from "../src/scrape-http.js";
import { type AutoscalerServer, startAutoscalerServer } from "../src/server.js";
import { AutoscalerService } from "../src/service.js";

const TOKEN = "a-token-of-sixteen-chars";
const noPods: Scaler = {
  scale: async () => {},
  pods: () => [],
  subscribe: () => () => {},
  close: async () => {},
};

function message(name: string, conc: number): WireStatMessage {
  return {
    namespace: "default",
    name,
    stat: { ...emptyStat("activator-1"), averageConcurrentRequests: conc, requestCount: conc },
  };
}

let server: AutoscalerServer | undefined;
let service: AutoscalerService | undefined;
afterEach(async () => {
  await service?.stop();
  await server?.close();
  server = undefined;
});

async function start(token?: string) {
  service = new AutoscalerService({
    scaler: noPods,
    clock: systemClock,
    scrape: async () => ({ ok: false, error: "none", maybeMesh: false }),
  });
  const p = policyFor({ containerConcurrency: 1 });
  if (!p.ok) throw new Error("policy");
  service.addRevision({ namespace: "default", name: "hello" }, p.value);
  const seen: string[] = [];
  service.on((e) => {
    if (e.type === "scale") seen.push(`${e.from}->${e.to}`);
  });
  server = await startAutoscalerServer({ service, clock: systemClock, ...(token ? { token } : {}) });
  return { seen, url: server.url };
}

async function until(cond: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("stat server over real loopback sockets", () => {
  it("a binary websocket frame of WireStatMessages reaches the decider (cold-start poke)", async () => {
    const { seen, url } = await start(TOKEN);
    const ws = new WebSocket(url.replace("http", "ws"), { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    ws.send("text frames are dropped");
    ws.send(encodeWireStatMessages([{ namespace: "default", name: "nostat" }, message("hello", 1)]));
    await until(() => seen.length > 0);
    // containerConcurrency 1 targets 0.7 per pod: one request needs ceil(1 / 0.7) = 2 pods.
    expect(seen).toEqual(["0->2"]);
    const closed = new Promise<number>((r) => ws.once("close", (code) => r(code)));
    await server?.close();
    server = undefined;
    expect(await closed).toBe(1012);
  });

  it("sends a connected activator the revision's pod problem as a text frame, current and new", async () => {
    const { url } = await start(TOKEN);
    const rev = { namespace: "default", name: "hello" };
    service?.reportProblem(rev, {
      severity: "failing",
      message: "app exited with code 3 before it was ready",
    });
    const ws = new WebSocket(url.replace("http", "ws"), { headers: { authorization: `Bearer ${TOKEN}` } });
    const notes: unknown[] = [];
    ws.on("message", (data, binary) => {
      if (!binary) notes.push(JSON.parse(String(data)));
    });
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    await until(() => notes.length > 0);
    service?.reportProblem(rev, undefined);
    await until(() => notes.length > 1);
    expect(notes).toEqual([
      { type: "problem", ...rev, severity: "failing", message: "app exited with code 3 before it was ready" },
      { type: "problem", ...rev, severity: null, message: null },
    ]);
    ws.close();
  });

  it("takes an activator's first-byte note (a text frame) for a revision it scales; other text is dropped", async () => {
    const { url } = await start(TOKEN);
    const told: unknown[] = [];
    service?.on((e) => {
      if (e.type === "first-byte") told.push(e);
    });
    const ws = new WebSocket(url.replace("http", "ws"), { headers: { authorization: `Bearer ${TOKEN}` } });
    await new Promise((r, j) => ws.once("open", r).once("error", j));
    const note = { type: "firstByte", namespace: "default", name: "hello", at: 1_796_148_186_757 };
    ws.send("not json");
    ws.send(JSON.stringify({ ...note, at: "soon" }));
    ws.send(JSON.stringify({ ...note, name: "unknown-revision" }));
    ws.send(JSON.stringify(note));
    // Frames of one link arrive in order: a stat frame sent after them marks that all were read.
    const poked: string[] = [];
    service?.on((e) => {
      if (e.type === "scale") poked.push(e.name);
    });
    ws.send(encodeWireStatMessages([message("hello", 1)]));
    await until(() => poked.length > 0);
    expect(told).toEqual([{ type: "first-byte", namespace: "default", name: "hello", at: note.at }]);
    ws.close();
  });

  it("refuses a websocket upgrade without the bearer token", async () => {
    const { url } = await start(TOKEN);
    const ws = new WebSocket(url.replace("http", "ws"));
    const status = await new Promise<number>((resolve) => {
      ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.once("error", () => resolve(-1));
    });
    expect(status === 401 || status === -1).toBe(true);
  });

  it.each([
    ["protobuf with token", "application/protobuf", TOKEN, 200],
    ["no token", "application/protobuf", undefined, 401],
    ["wrong content type", "application/json", TOKEN, 415],
  ])("POST /v1/stats: %s -> %s", async (_n, type, token, status) => {
    const { url, seen } = await start(TOKEN);
    const headers: Record<string, string> = { "content-type": type };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${url}/v1/stats`, {
      method: "POST",
      headers,
      body: encodeWireStatMessages([message("hello", 2)]),
    });
    expect(res.status).toBe(status);
    if (status === 200) {
      expect(await res.json()).toEqual({ accepted: 1, skipped: 0 });
      await until(() => seen.length > 0);
    } else await res.body?.cancel();
  });

  it("POST /v1/stats with bytes that are not a WireStatMessages answers 400", async () => {
    const { url } = await start();
    const res = await fetch(`${url}/v1/stats`, {
      method: "POST",
      headers: { "content-type": "application/protobuf" },
      body: new Uint8Array([0x0a, 0xff, 0xff]),
    });
    expect(res.status).toBe(400);
  });

  it("GET /v1/scale-events streams the status on connect, then every scale event (SSE)", async () => {
    const { url } = await start(TOKEN);
    const ac = new AbortController();
    const res = await fetch(`${url}/v1/scale-events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: ac.signal,
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (needle: string) => {
      for (let i = 0; i < 100 && !text.includes(needle); i++) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    };
    await readUntil("event: status");
    expect(text).toContain('"mode":"proxy"');
    await fetch(`${url}/v1/stats`, {
      method: "POST",
      headers: { "content-type": "application/protobuf", authorization: `Bearer ${TOKEN}` },
      body: encodeWireStatMessages([message("hello", 1)]),
    });
    await readUntil("event: scale");
    const scale = text.split("\n\n").find((b) => b.startsWith("event: scale"));
    expect(JSON.parse(scale?.split("data: ")[1] ?? "{}")).toMatchObject({
      type: "scale",
      namespace: "default",
      name: "hello",
      from: 0,
      to: 2,
      reason: "request while scaled to zero",
    });
    ac.abort();
    const denied = await fetch(`${url}/v1/scale-events`);
    expect(denied.status).toBe(401);
    await denied.body?.cancel();
  });

  it("answers kubelet probes with 200 and serves status as JSON", async () => {
    const { url } = await start(TOKEN);
    const probe = await fetch(`${url}/`, { headers: { "user-agent": "kube-probe/1.31" } });
    expect(probe.status).toBe(200);
    expect((await fetch(`${url}/v1/revisions`)).status).toBe(401);
    const revs = await fetch(`${url}/v1/revisions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await revs.json()) as unknown[])[0]).toMatchObject({
      namespace: "default",
      name: "hello",
      desiredScale: 0,
    });
  });
});

// The fetch-based scraper and the node:http one the service uses by default keep one contract.
const scrapers: [string, (url: string, timeoutMs?: number) => Promise<ScrapeResult>][] = [
  ["scrapeStat", (url, timeoutMs) => scrapeStat(url, timeoutMs === undefined ? {} : { timeoutMs })],
  ["httpScrapeStat", (url, timeoutMs) => httpScrapeStat(url, timeoutMs)],
];

describe.each(scrapers)("%s against a real HTTP server", (_name, scrape) => {
  let pod: Server | undefined;
  afterEach(() => {
    pod?.closeAllConnections();
    pod?.close();
  });
  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    pod = createServer(handler);
    await new Promise<void>((r) => pod?.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(pod.address() as AddressInfo).port}/metrics`;
  }
  const stat = { ...emptyStat("pod-a"), averageConcurrentRequests: 3.5, requestCount: 7, processUptime: 12 };

  it("decodes the queue-proxy's protobuf Stat and asks for protobuf", async () => {
    let accept = "";
    const url = await serve((req, res) => {
      accept = req.headers.accept ?? "";
      res.writeHead(200, { "content-type": "application/protobuf" }).end(encodeStat(stat));
    });
    expect(await scrape(url)).toEqual({ ok: true, stat });
    expect(accept).toBe("application/protobuf");
  });

  it.each([
    ["a 503 (maybe a mesh)", 503, "application/protobuf", true, /status 503/],
    ["a 500", 500, "application/protobuf", false, /status 500/],
    ["another content type", 200, "text/plain", false, /content type/],
  ])("refuses %s", async (_n, status, type, mesh, error) => {
    const url = await serve((_req, res) => res.writeHead(status, { "content-type": type }).end("x"));
    const r = await scrape(url);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.maybeMesh).toBe(mesh);
      expect(r.error).toMatch(error);
    }
  });

  it("reads at most 336 bytes of a body", async () => {
    // A valid Stat followed by a huge unknown field: cut at 336 bytes, the tail no longer parses.
    const huge = new Uint8Array(10_000).fill(0x41);
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "application/protobuf" });
      res.write(encodeStat(stat));
      res.end(Buffer.concat([Buffer.from([0x42, 0x90, 0x4e]), huge]));
    });
    const r = await scrape(url);
    expect(r.ok).toBe(false);
  });

  it("gives up after the timeout", async () => {
    const url = await serve(() => {});
    const t0 = Date.now();
    const r = await scrape(url, 150);
    expect(r.ok).toBe(false);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
