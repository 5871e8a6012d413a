import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "../src/node/config.js";
import { type RunningActivator, startActivator } from "../src/node/server.js";

// Passthrough LB (knative-spec d.1, P2) and the ClusterIP fallback (d.3), through the Node activator as
// `thaw-activator` starts it: flags and THAW_REVISIONS read by readConfig, real loopback servers as pods.

const KEY = { namespace: "default", name: "hello-00001" };
const REV = { "knative-serving-namespace": KEY.namespace, "knative-serving-revision": KEY.name };
const PRIVATE_HOST = "hello-00001-private.default";

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

interface Seen {
  kind: "probe" | "request" | "upgrade";
  method: string;
  headers: IncomingHttpHeaders;
}

/**
 * A pod (or a private Service's ClusterIP) on loopback: answers the queue probe with `probe` (status and
 * body), echoes requests with its own name, and accepts websocket upgrades; records what it saw.
 */
async function pod(name: string, probe: { status: number; body: string }) {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const isProbe = req.headers["k-network-probe"] === "queue";
    seen.push({ kind: isProbe ? "probe" : "request", method: req.method ?? "", headers: req.headers });
    req.resume();
    req.on("end", () => {
      if (isProbe) res.writeHead(probe.status).end(probe.body);
      else res.writeHead(200, { "content-type": "text/plain" }).end(`from ${name}`);
    });
  });
  server.on("upgrade", (req, socket) => {
    seen.push({ kind: "upgrade", method: req.method ?? "", headers: req.headers });
    socket.end("HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\n\r\n");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  const addr = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { addr, seen, of: (kind: Seen["kind"]) => seen.filter((s) => s.kind === kind) };
}

const QUEUE = { status: 200, body: "queue" };
const MESH = { status: 503, body: "upstream connect error or disconnect/reset before headers" };

/** Starts the activator from argv and env as its CLI does. */
async function activatorFrom(argv: string[], revision: Record<string, unknown>): Promise<RunningActivator> {
  const read = readConfig(argv, {
    THAW_ACTIVATOR_HOST: "127.0.0.1",
    THAW_ACTIVATOR_PORT: "0",
    THAW_DRAIN_DELAY_MS: "0",
    THAW_REVISIONS: JSON.stringify([{ ...KEY, ...revision }]),
  });
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  const a = await startActivator(read.config);
  cleanup.push(() => a.close());
  return a;
}

/** A raw websocket handshake through the activator; resolves with the status line. */
function upgrade(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    let got = "";
    s.on("data", (d) => {
      got += d.toString();
      if (got.includes("\r\n")) {
        s.destroy();
        resolve(got.split("\r\n")[0] as string);
      }
    });
    s.on("error", reject);
    s.write(
      "GET /ws HTTP/1.1\r\nhost: hello.example.com\r\nupgrade: websocket\r\nconnection: Upgrade\r\n" +
        "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n" +
        `knative-serving-namespace: ${KEY.namespace}\r\nknative-serving-revision: ${KEY.name}\r\n\r\n`,
    );
  });
}

/** A cold GET (portable path), a warm GET (Node fast path), a POST with a body, and a websocket. */
async function sendAll(a: RunningActivator): Promise<string[]> {
  const url = `http://127.0.0.1:${a.port}/x`;
  const headers = REV;
  const bodies: string[] = [];
  for (const init of [{}, {}, { method: "POST", body: "payload" }] as RequestInit[]) {
    const res = await fetch(url, { ...init, headers });
    bodies.push(`${res.status} ${await res.text()}`);
  }
  bodies.push(await upgrade(a.port));
  return bodies;
}

describe("passthrough LB (knative-spec d.1, P2): --passthrough-lb / THAW_PASSTHROUGH_LB", () => {
  it("with the flag, forwards (portable path, fast path, websocket) and probes carry the private Host and K-Passthrough-Lb", async () => {
    const p = await pod("pod", QUEUE);
    const a = await activatorFrom(["--passthrough-lb"], { endpoints: [p.addr] });
    expect(await sendAll(a)).toEqual([
      "200 from pod",
      "200 from pod",
      "200 from pod",
      "HTTP/1.1 101 Switching Protocols",
    ]);
    const forwarded = [...p.of("request"), ...p.of("upgrade")];
    expect(forwarded.map((s) => s.method)).toEqual(["GET", "GET", "POST", "GET"]);
    for (const s of forwarded) {
      expect(s.headers.host).toBe(PRIVATE_HOST);
      expect(s.headers["k-passthrough-lb"]).toBe("true");
      // The client's Host still travels on in K-Original-Host for the queue-proxy to restore.
      expect(s.headers["k-original-host"]).toBe(
        s.kind === "upgrade" ? "hello.example.com" : `127.0.0.1:${a.port}`,
      );
      expect(s.headers["k-proxy-request"]).toBe("activator");
    }
    expect(p.of("probe").length).toBeGreaterThan(0);
    for (const s of p.of("probe")) {
      expect(s.headers.host).toBe(PRIVATE_HOST);
      expect(s.headers["k-passthrough-lb"]).toBe("true");
      expect(s.headers["user-agent"]).toBe("Knative-Activator-Probe");
    }
  });

  it("without the flag, neither forwards nor probes carry them (Host is the pod's address)", async () => {
    const p = await pod("pod", QUEUE);
    const a = await activatorFrom([], { endpoints: [p.addr] });
    expect(await sendAll(a)).toEqual([
      "200 from pod",
      "200 from pod",
      "200 from pod",
      "HTTP/1.1 101 Switching Protocols",
    ]);
    const all = p.seen;
    expect(all.filter((s) => s.kind !== "probe").length).toBe(4);
    expect(p.of("probe").length).toBeGreaterThan(0);
    for (const s of all) {
      expect(s.headers.host).toBe(p.addr);
      expect(s.headers["k-passthrough-lb"]).toBeUndefined();
    }
  });

  it("THAW_PASSTHROUGH_LB=true is the same switch; a value other than true/false is refused by name", () => {
    const env = { THAW_PASSTHROUGH_LB: "true" };
    const on = readConfig([], env);
    expect(on.ok && on.config.passthroughLb).toBe(true);
    const off = readConfig(["--passthrough-lb=false"], env);
    expect(off.ok && off.config.passthroughLb).toBe(false);
    const bad = readConfig([], { THAW_PASSTHROUGH_LB: "yes" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.issues[0]?.path).toBe("THAW_PASSTHROUGH_LB");
    // A bare switch followed by another flag still reads that flag's value.
    const both = readConfig(["--passthrough-lb", "--port", "9000"], {});
    expect(both.ok && [both.config.passthroughLb, both.config.port]).toEqual([true, 9000]);
  });
});

describe("ClusterIP fallback (knative-spec d.3) from THAW_REVISIONS' clusterIP", () => {
  it("pods answering the probe 503 (mesh-like): the ClusterIP passes the queue probe and requests go through it", async () => {
    const p1 = await pod("pod1", MESH);
    const p2 = await pod("pod2", MESH);
    const cip = await pod("clusterip", QUEUE);
    const a = await activatorFrom([], {
      endpoints: [p1.addr, p2.addr],
      clusterIP: cip.addr,
      timeoutSeconds: 5,
    });
    const res = await fetch(`http://127.0.0.1:${a.port}/x`, { headers: REV });
    expect(`${res.status} ${await res.text()}`).toBe("200 from clusterip");
    // Warm path too, and a body: every request goes to the ClusterIP, none to a pod.
    for (const init of [{}, { method: "POST", body: "b" }] as RequestInit[]) {
      const r = await fetch(`http://127.0.0.1:${a.port}/x`, { ...init, headers: REV });
      expect(await r.text()).toBe("from clusterip");
    }
    expect(cip.of("request").length).toBe(3);
    expect(cip.of("probe").length).toBeGreaterThan(0);
    for (const s of cip.of("probe")) expect(s.headers["k-passthrough-lb"]).toBeUndefined();
    expect([...p1.of("request"), ...p2.of("request")]).toEqual([]);
    expect(p1.of("probe").length).toBeGreaterThan(0);
  });

  it("a pod answering a non-mesh status (404) blocks the fallback: the ClusterIP is never probed", async () => {
    const p1 = await pod("pod1", MESH);
    const p2 = await pod("pod2", { status: 404, body: "not found" });
    const cip = await pod("clusterip", QUEUE);
    const a = await activatorFrom([], {
      endpoints: [p1.addr, p2.addr],
      clusterIP: cip.addr,
      timeoutSeconds: 1,
    });
    const res = await fetch(`http://127.0.0.1:${a.port}/x`, { headers: REV });
    expect(res.status).toBe(504);
    await res.text();
    expect(p2.of("probe").length).toBeGreaterThan(0);
    expect(cip.seen).toEqual([]);
  });

  it("passthrough LB also blocks it: pods are addressable, so mesh answers mean not ready", async () => {
    const p1 = await pod("pod1", MESH);
    const cip = await pod("clusterip", QUEUE);
    const a = await activatorFrom(["--passthrough-lb"], {
      endpoints: [p1.addr],
      clusterIP: cip.addr,
      timeoutSeconds: 1,
    });
    const res = await fetch(`http://127.0.0.1:${a.port}/x`, { headers: REV });
    expect(res.status).toBe(504);
    await res.text();
    expect(p1.of("probe").length).toBeGreaterThan(0);
    expect(cip.seen).toEqual([]);
  });

  it("a clusterIP that is not host:port is refused with its field path", () => {
    const bad = readConfig([], {
      THAW_REVISIONS: JSON.stringify([{ ...KEY, endpoints: [], clusterIP: "10.96.0.12" }]),
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.issues.map((i) => i.path)).toEqual(["THAW_REVISIONS[0].clusterIP"]);
  });
});
