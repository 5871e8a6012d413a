import { systemClock } from "@thaw/clock";
import { afterEach, describe, expect, it } from "vitest";
import { runProbeAttempt } from "../attempt.js";
import { detectHttpProtocol } from "../http-probe.js";
import { createProber } from "../prober.js";
import type { Probe } from "../types.js";
import { closedPort, startGrpcHealthServer, startHttpServer, startTcpServer } from "./testing.js";
import { nodeTransport } from "./transport.js";

// Real sockets on 127.0.0.1: these tests run on the system clock, with short bounded timeouts.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function http(behaviour: Parameters<typeof startHttpServer>[0]) {
  const s = await startHttpServer(behaviour);
  cleanups.push(s.close);
  return s;
}

const attempt = (probe: Probe, timeoutMs = 1000, httpMode: "http1" | "h2c" | "auto" = "http1") =>
  runProbeAttempt(probe, { transport: nodeTransport, clock: systemClock, timeoutMs, httpMode });

describe("HTTP/1.1 transport", () => {
  it("sends GET with User-Agent kube-probe//, the user's headers and Connection: close", async () => {
    const s = await http({ http1: () => ({ status: 200 }) });
    const r = await attempt({
      httpGet: {
        port: s.port,
        path: "healthz?x=1",
        httpHeaders: [
          { name: "X-Probe", value: "yes" },
          { name: "User-Agent", value: "mine" },
        ],
      },
    });
    expect(r).toEqual({ ok: true });
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]).toMatchObject({ protoMajor: 1, method: "GET", path: "/healthz", rawQuery: "x=1" });
    expect(s.requests[0]?.headers).toMatchObject({
      "User-Agent": "kube-probe//",
      "X-Probe": "yes",
      Connection: "close",
    });
  });

  it.each([
    { status: 204, ok: true },
    { status: 301, ok: true },
    { status: 404, ok: false },
    { status: 503, ok: false },
  ])("status $status ready: $ok", async ({ status, ok }) => {
    const s = await http({ http1: () => ({ status }) });
    expect((await attempt({ httpGet: { port: s.port } })).ok).toBe(ok);
  });

  it.each([
    { target: "/ok", ok: true },
    { target: "/broken", ok: false },
  ])("follows a redirect to $target", async ({ target, ok }) => {
    const s = await http({
      http1: (_n, req) =>
        req.path === "/start"
          ? { status: 302, headers: { location: target } }
          : { status: req.path === "/ok" ? 200 : 500 },
    });
    expect((await attempt({ httpGet: { port: s.port, path: "/start" } })).ok).toBe(ok);
    expect(s.requests.map((q) => q.path)).toEqual(["/start", target]);
  });

  it("probes HTTPS without verifying the certificate, as kubelet does", async () => {
    const s = await http({ tls: true, http1: () => ({ status: 204 }) });
    expect(await attempt({ httpGet: { port: s.port, scheme: "HTTPS", path: "/secure" } })).toEqual({
      ok: true,
    });
    expect(s.requests.map((q) => q.path)).toEqual(["/secure"]);
    expect((await attempt({ httpGet: { port: s.port, scheme: "HTTP" } })).ok).toBe(false);
  });

  it("fails on a slow answer once the timeout passes", async () => {
    const s = await http({ http1: () => ({ status: 200, delayMs: 500 }) });
    const r = await attempt({ httpGet: { port: s.port } }, 50);
    expect(r.ok ? "" : r.error.code).toBe("ERR_PROBE_TIMEOUT");
  });

  it("fails with the connect error when nothing listens", async () => {
    const r = await attempt({ httpGet: { port: await closedPort() } });
    expect(r.ok ? "" : r.error.message).toMatch(/ECONNREFUSED/);
  });
});

describe("h2c and HTTP/2 auto-detection", () => {
  it.each([
    { name: "h2c only", h1: false as const, h2: true, want: 2 },
    { name: "both (h2c preferred)", h1: true, h2: true, want: 2 },
    { name: "HTTP/1 only", h1: true, h2: false, want: 1 },
  ])("detects $name", async ({ h1, h2, want }) => {
    const s = await http({
      http1: h1 ? () => ({ status: 200 }) : false,
      h2c: h2 ? () => ({ status: null }) : false,
    });
    expect(
      await detectHttpProtocol(
        { port: s.port },
        { transport: nodeTransport, clock: systemClock, timeoutMs: 1000 },
      ),
    ).toBe(want);
  });

  it("runs the whole auto flow: h2c without headers, then h2c with them", async () => {
    const s = await http({ http1: () => ({ status: 200 }), h2c: () => ({ status: 200 }) });
    const r = await attempt(
      { httpGet: { port: s.port, httpHeaders: [{ name: "X-A", value: "1" }] } },
      1000,
      "auto",
    );
    expect(r).toEqual({ ok: true });
    expect(s.requests.map((q) => [q.protoMajor, q.headers["x-a"] ?? null])).toEqual([
      [2, null],
      [2, "1"],
    ]);
    expect(s.requests[0]?.headers["user-agent"]).toBe("kube-probe//");
  });

  it("falls back to one HTTP/1.1 GET without user headers when h2c is not ready", async () => {
    const s = await http({ http1: () => ({ status: 200 }), h2c: () => ({ status: 500 }) });
    const r = await attempt(
      { httpGet: { port: s.port, httpHeaders: [{ name: "X-A", value: "1" }] } },
      1000,
      "auto",
    );
    expect(r).toEqual({ ok: true });
    expect(s.requests.map((q) => [q.protoMajor, q.headers["X-A"] ?? q.headers["x-a"] ?? null])).toEqual([
      [2, null],
      [1, null],
    ]);
  });

  it("fails when neither protocol answers ready", async () => {
    const s = await http({ http1: () => ({ status: 500 }), h2c: () => ({ status: 500 }) });
    await expect(
      detectHttpProtocol({ port: s.port }, { transport: nodeTransport, clock: systemClock, timeoutMs: 1000 }),
    ).rejects.toThrow(/500/);
  });
});

describe("TCP transport", () => {
  it("succeeds while listening and fails after close", async () => {
    const s = await startTcpServer();
    const probe: Probe = { tcpSocket: { port: s.port } };
    expect((await attempt(probe)).ok).toBe(true);
    expect(s.accepted).toBe(1);
    await s.stop();
    expect((await attempt(probe)).ok).toBe(false);
  });
});

describe("gRPC transport", () => {
  it.each([
    { name: "SERVING", answer: "SERVING" as const, ok: true, error: "" },
    { name: "NOT_SERVING", answer: "NOT_SERVING" as const, ok: false, error: "answered NOT_SERVING" },
    {
      name: "Unimplemented",
      answer: { code: 12, message: "no health" },
      ok: false,
      error: "does not implement the gRPC health protocol",
    },
    {
      name: "NotFound",
      answer: { code: 5, message: "unknown service" },
      ok: false,
      error: "NotFound: unknown service",
    },
    {
      name: "too slow",
      answer: { delayMs: 500, status: "SERVING" as const },
      ok: false,
      error: "did not complete within 200ms (DeadlineExceeded)",
    },
  ])("$name", async ({ answer, ok, error }) => {
    const s = await startGrpcHealthServer(() => answer);
    cleanups.push(s.close);
    const r = await attempt({ grpc: { port: s.port, service: "svc" } }, 200);
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.error.message).toContain(error);
    expect(s.calls[0]).toEqual({ service: "svc", userAgent: "kube-probe// thaw-grpc/0.1" });
  });
});

describe("aggressive prober on real sockets", () => {
  it("detects a server that starts listening after the prober started", async () => {
    const port = await closedPort();
    const prober = createProber({
      probes: [{ tcpSocket: { port } }],
      transport: nodeTransport,
      clock: systemClock,
    });
    const ready = prober.probe();
    await systemClock.sleep(120);
    const s = await startTcpServer(port);
    const t0 = Date.now();
    expect(await ready).toBe(true);
    expect(Date.now() - t0).toBeLessThan(1000);
    await s.stop();
  });
});
