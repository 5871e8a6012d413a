import { systemClock } from "@thaw/clock";
import { describe, expect, inject, it } from "vitest";
import { createProber, runProbeAttempt } from "../src/index.js";
import { createWorkerdTransport } from "../src/workerd/index.js";

// These run inside workerd (vitest-pool-workers) against servers that global-setup.ts started in Node.
const transport = createWorkerdTransport();
const attempt = (
  probe: Parameters<typeof runProbeAttempt>[0],
  httpMode: "http1" | "h2c" | "auto" = "http1",
) => runProbeAttempt(probe, { transport, clock: systemClock, timeoutMs: 2000, httpMode });

describe("workerd transport", () => {
  it("runs inside workerd", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
  });

  it.each([
    { status: 200, ok: true },
    { status: 302, ok: true },
    { status: 500, ok: false },
  ])("HTTP status $status ready: $ok", async ({ status, ok }) => {
    const r = await attempt({ httpGet: { port: inject("httpPort"), path: `/status/${status}` } });
    expect(r.ok).toBe(ok);
  });

  it.each([
    { code: 200, ok: true },
    { code: 500, ok: false },
  ])("follows a redirect to a $code page", async ({ code, ok }) => {
    expect((await attempt({ httpGet: { port: inject("httpPort"), path: `/redirect-to/${code}` } })).ok).toBe(
      ok,
    );
  });

  it("sends User-Agent kube-probe// and the user's headers", async () => {
    const port = inject("httpPort");
    const r = await attempt({
      httpGet: { port, path: "status/200", httpHeaders: [{ name: "X-Probe", value: "edge" }] },
    });
    expect(r).toEqual({ ok: true });
    const seen = (await (await fetch(`http://127.0.0.1:${port}/seen`)).json()) as string[];
    const headers = new Map<string, string>();
    for (let i = 0; i + 1 < seen.length; i += 2)
      headers.set(String(seen[i]).toLowerCase(), String(seen[i + 1]));
    expect(headers.get("user-agent")).toBe("kube-probe//");
    expect(headers.get("x-probe")).toBe("edge");
  });

  it("auto-detection falls back to HTTP/1.1, since workerd cannot send h2c", async () => {
    expect(await attempt({ httpGet: { port: inject("httpPort"), path: "/status/200" } }, "auto")).toEqual({
      ok: true,
    });
    const r = await attempt({ httpGet: { port: inject("httpPort"), path: "/status/200" } }, "h2c");
    expect(r.ok ? "" : r.error.code).toBe("ERR_PROBE_UNSUPPORTED");
  });

  it("TCP connect succeeds on a listener and fails on a closed port", async () => {
    expect(await attempt({ tcpSocket: { port: inject("tcpPort") } })).toEqual({ ok: true });
    expect((await attempt({ tcpSocket: { port: inject("closedPort") } })).ok).toBe(false);
  });

  it("refuses gRPC with a clear error", async () => {
    const r = await attempt({ grpc: { port: inject("tcpPort") } });
    expect(r.ok ? "" : `${r.error.code}: ${r.error.message}`).toBe(
      "ERR_PROBE_UNSUPPORTED: gRPC probes are not supported on workerd",
    );
  });

  it("the aggressive prober becomes ready through the workerd transport", async () => {
    const prober = createProber({
      probes: [{ tcpSocket: { port: inject("tcpPort") }, successThreshold: 2 }],
      transport,
      clock: systemClock,
    });
    expect(await prober.probe()).toBe(true);
    expect(prober.consecutiveSuccesses()).toBe(2);
  });

  it("the HTTP prober fails in normal mode on a 500", async () => {
    const prober = createProber({
      probes: [
        { httpGet: { port: inject("httpPort"), path: "/status/500" }, periodSeconds: 1, timeoutSeconds: 1 },
      ],
      transport,
      clock: systemClock,
    });
    expect(await prober.probe()).toBe(false);
  });
});
