import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { createProber, type ProberOptions } from "./prober.js";
import { createFakeTransport, type FakeCall, type FakeReply } from "./testing.js";
import type { Probe } from "./types.js";

const tcp = (extra: Partial<Probe> = {}): Probe => ({
  tcpSocket: { host: "127.0.0.1", port: 8080 },
  ...extra,
});
const http = (extra: Partial<Probe> = {}): Probe => ({
  httpGet: { host: "127.0.0.1", port: 8080, path: "/ready", httpHeaders: [{ name: "X-Test", value: "1" }] },
  ...extra,
});

function setup(
  probes: Probe[],
  respond: (call: FakeCall, i: number) => FakeReply,
  extra: Partial<ProberOptions> = {},
) {
  const clock = new ManualClock(1_000_000);
  const transport = createFakeTransport(clock, respond);
  const logs: string[] = [];
  const prober = createProber({ probes, transport, clock, log: (l) => logs.push(l), ...extra });
  /** Advances one millisecond at a time so every promise chain sees the time it would see for real. */
  const run = async (ms: number) => {
    for (let i = 0; i < ms; i++) await clock.advance(1);
  };
  const startTimes = () => transport.calls.map((c) => c.at - 1_000_000);
  return { clock, transport, logs, prober, run, startTimes };
}

/** Resolves the probe result while advancing time, failing the test if it takes longer than `maxMs`. */
async function settle(
  p: Promise<boolean>,
  run: (ms: number) => Promise<void>,
  maxMs: number,
): Promise<boolean> {
  let result: boolean | undefined;
  void p.then((r) => {
    result = r;
  });
  for (let t = 0; t < maxMs && result === undefined; t++) await run(1);
  if (result === undefined) throw new Error(`probe still running after ${maxMs}ms`);
  return result;
}

describe("normal mode (periodSeconds > 0)", () => {
  it.each([
    { name: "success", reply: {}, want: true },
    { name: "connection refused", reply: { error: "ECONNREFUSED" }, want: false },
    { name: "answers within timeoutSeconds", reply: { afterMs: 1900 }, want: true },
  ])("one attempt: $name", async ({ reply, want }) => {
    const s = setup([tcp({ periodSeconds: 1, timeoutSeconds: 2 })], () => reply);
    expect(await settle(s.prober.probe(), s.run, 3000)).toBe(want);
    expect(s.transport.calls).toHaveLength(1);
    expect(s.transport.calls[0]?.timeoutMs).toBe(2000);
  });

  it("times out after timeoutSeconds on the clock", async () => {
    const s = setup([tcp({ periodSeconds: 1, timeoutSeconds: 2 })], () => ({ hang: true }));
    const p = s.prober.probe();
    await s.run(1999);
    let done = false;
    void p.then(() => {
      done = true;
    });
    await s.run(0);
    expect(done).toBe(false);
    expect(await settle(p, s.run, 10)).toBe(false);
  });
});

describe("aggressive mode (periodSeconds 0)", () => {
  it("attempts at once and then every 50 ms until the first success", async () => {
    const s = setup([tcp()], (_c, i) => (i < 3 ? { error: "refused" } : {}));
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.startTimes()).toEqual([0, 50, 100, 150]);
    expect(s.logs).toEqual([]);
  });

  it("spaces attempts from attempt start, so slow failures do not delay the next one", async () => {
    const s = setup([tcp()], (_c, i) => (i < 2 ? { error: "slow no", afterMs: 30 } : {}));
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.startTimes()).toEqual([0, 50, 100]);
  });

  it("gives each attempt 100 ms and starts the next at once after a timeout", async () => {
    const s = setup([tcp()], (_c, i) => (i === 0 ? { hang: true } : {}));
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.startTimes()).toEqual([0, 100]);
    expect(s.transport.calls[0]?.timeoutMs).toBe(100);
  });

  it("needs successThreshold consecutive successes; a failure restarts the count", async () => {
    const outcomes = [true, false, true, true, true];
    const s = setup([tcp({ successThreshold: 3 })], (_c, i) => (outcomes[i] ? {} : { error: "no" }));
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.transport.calls).toHaveLength(5);
    expect(s.prober.consecutiveSuccesses()).toBe(3);
  });

  it("gives up after 10 s with one summary log line", async () => {
    const s = setup([tcp()], () => ({ error: "connect ECONNREFUSED" }));
    expect(await settle(s.prober.probe(), s.run, 10_100)).toBe(false);
    // Attempts at 0, 50, ..., 9950: 200 of them.
    expect(s.transport.calls).toHaveLength(200);
    expect(s.logs).toEqual(["aggressive probe error (failed 200 times): connect ECONNREFUSED"]);
  });

  it("with connectRetryMaxMs, retries refused connects every 1 ms while the app is young", async () => {
    const s = setup([tcp()], (_c, i) => (i < 6 ? { error: "connect ECONNREFUSED" } : {}), {
      aggressive: { connectRetryMaxMs: 4 },
    });
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.startTimes()).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("with connectRetryMaxMs, pauses 1 ms per 400 ms refused so far, up to the cap", async () => {
    const upAt = 6000;
    const s = setup([tcp()], (c) => (c.at - 1_000_000 < upAt ? { error: "connect ECONNREFUSED" } : {}), {
      aggressive: { connectRetryMaxMs: 10 },
    });
    expect(await settle(s.prober.probe(), s.run, upAt + 100)).toBe(true);
    const t = s.startTimes();
    const gapAfter = (at: number) => {
      const i = t.findIndex((x) => x >= at);
      return (t[i + 1] as number) - (t[i] as number);
    };
    expect(gapAfter(0)).toBe(1);
    expect(gapAfter(300)).toBe(1);
    expect(gapAfter(1000)).toBeCloseTo(2.5, 0);
    expect(gapAfter(2000)).toBeCloseTo(5, 0);
    expect(gapAfter(4500)).toBe(10);
    // Seen at most one pause (10 ms) after it listened, in about 400 + 400 ln(10) + 200 attempts where a
    // 1 ms poll makes 6,000.
    expect((t.at(-1) as number) - upAt).toBeLessThanOrEqual(10);
    expect(t.length).toBeLessThan(1600);
  });

  it("with connectRetryMaxMs, an app that answered not-ready is still polled every 50 ms", async () => {
    const s = setup([http()], (_c, i) => (i < 2 ? { status: 503 } : {}), {
      aggressive: { connectRetryMaxMs: 4 },
    });
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.startTimes()).toEqual([0, 50, 100]);
  });

  it("with connectRetryMaxMs, the backoff starts over once the app answered", async () => {
    const replies = [{ error: "refused" }, { error: "refused" }, { status: 503 }, { error: "refused" }, {}];
    const s = setup([http()], (_c, i) => replies[i] ?? {}, { aggressive: { connectRetryMaxMs: 8 } });
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.startTimes()).toEqual([0, 1, 2, 52, 53]);
  });

  it("with connectRetryMaxMs, a refused run still gives up after 10 s with one log line", async () => {
    const s = setup([tcp()], () => ({ error: "connect ECONNREFUSED" }), {
      aggressive: { connectRetryMaxMs: 4 },
    });
    expect(await settle(s.prober.probe(), s.run, 10_100)).toBe(false);
    expect(s.transport.calls.length).toBeGreaterThan(2000);
    expect(s.logs).toHaveLength(1);
    expect(s.logs[0]).toMatch(/^aggressive probe error \(failed \d+ times\): connect ECONNREFUSED$/);
  });

  it("keeps the consecutive-success counter across calls", async () => {
    let up = true;
    const s = setup([tcp({ successThreshold: 3 })], () => (up ? {} : { error: "down" }));
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    const before = s.transport.calls.length;
    expect(await settle(s.prober.probe(), s.run, 1000)).toBe(true);
    expect(s.transport.calls.length - before).toBe(1);
    up = false;
    const p = s.prober.probe();
    await s.run(60);
    expect(s.prober.consecutiveSuccesses()).toBe(0);
    up = true;
    expect(await settle(p, s.run, 1000)).toBe(true);
  });

  it.each([
    { name: "exec", probe: { exec: { command: ["true"] } }, error: "exec probe not supported" },
    { name: "no handler", probe: {}, error: "no probe found" },
  ])("fails $name at once without polling", async ({ probe }) => {
    const s = setup([probe], () => ({}));
    expect(await settle(s.prober.probe(), s.run, 5)).toBe(false);
    expect(s.transport.calls).toHaveLength(0);
  });
});

describe("runs", () => {
  it("shares one run between concurrent callers", async () => {
    const s = setup([tcp({ periodSeconds: 1, timeoutSeconds: 1 })], () => ({ afterMs: 10 }));
    const a = s.prober.probe();
    const b = s.prober.probe();
    expect(b).toBe(a);
    expect(await settle(a, s.run, 100)).toBe(true);
    expect(s.transport.calls).toHaveLength(1);
    expect(await settle(s.prober.probe(), s.run, 100)).toBe(true);
    expect(s.transport.calls).toHaveLength(2);
  });

  it.each([
    { name: "all succeed", fail: [] as number[], want: true },
    { name: "first fails", fail: [8080], want: false },
    { name: "second fails", fail: [9090], want: false },
  ])("runs every probe concurrently, ready only if all pass: $name", async ({ fail, want }) => {
    const probes = [
      tcp({ periodSeconds: 1, timeoutSeconds: 1 }),
      { tcpSocket: { port: 9090 }, periodSeconds: 1, timeoutSeconds: 1 },
    ];
    const s = setup(probes, (c) => (fail.includes(c.tcp?.port ?? 0) ? { error: "no" } : { afterMs: 20 }));
    expect(await settle(s.prober.probe(), s.run, 100)).toBe(want);
    expect(s.startTimes()).toEqual([0, 0]);
  });

  it("stops polling when its signal aborts", async () => {
    const ac = new AbortController();
    const s = setup([tcp()], () => ({ error: "refused" }), { signal: ac.signal });
    const p = s.prober.probe();
    await s.run(120);
    ac.abort(new Error("shutdown"));
    expect(await settle(p, s.run, 5)).toBe(false);
    const calls = s.transport.calls.length;
    expect(calls).toBe(3);
    expect(await settle(s.prober.probe(), s.run, 5)).toBe(false);
    expect(s.transport.calls.length).toBe(calls);
    expect(s.logs).toEqual([]);
  });

  it("aborts an attempt in flight when its signal aborts", async () => {
    const ac = new AbortController();
    const s = setup([tcp({ periodSeconds: 1, timeoutSeconds: 5 })], () => ({ hang: true }), {
      signal: ac.signal,
    });
    const p = s.prober.probe();
    await s.run(10);
    ac.abort(new Error("shutdown"));
    expect(await settle(p, s.run, 5)).toBe(false);
  });

  it("refuses an empty probe list", () => {
    expect(() => setup([], () => ({}))).toThrow(RangeError);
  });
});

describe("HTTP probes", () => {
  it("sends User-Agent kube-probe// then the user headers over HTTP/1.1", async () => {
    const s = setup([http({ periodSeconds: 1, timeoutSeconds: 1 })], () => ({ status: 204 }));
    expect(await settle(s.prober.probe(), s.run, 10)).toBe(true);
    expect(s.transport.calls[0]?.http).toEqual({
      url: "http://127.0.0.1:8080/ready",
      headers: [
        ["User-Agent", "kube-probe//"],
        ["X-Test", "1"],
      ],
      protocol: "http1",
    });
  });

  it.each([
    { status: 199, want: false },
    { status: 200, want: true },
    { status: 302, want: true },
    { status: 399, want: true },
    { status: 400, want: false },
    { status: 503, want: false },
  ])("status $status ready: $want", async ({ status, want }) => {
    const s = setup([http({ periodSeconds: 1, timeoutSeconds: 1 })], () => ({ status }));
    expect(await settle(s.prober.probe(), s.run, 10)).toBe(want);
  });

  type Step = [protocol: "http1" | "h2c", userHeaders: boolean];
  it.each([
    {
      name: "h2c ready: second h2c GET with headers decides",
      replies: [200, 200],
      want: true,
      steps: [
        ["h2c", false],
        ["h2c", true],
      ] as Step[],
    },
    {
      name: "h2c ready but headed GET fails",
      replies: [200, 500],
      want: false,
      steps: [
        ["h2c", false],
        ["h2c", true],
      ] as Step[],
    },
    {
      name: "h2c refused: HTTP/1.1 without headers decides",
      replies: [-1, 200],
      want: true,
      steps: [
        ["h2c", false],
        ["http1", false],
      ] as Step[],
    },
    {
      name: "h2c not ready: HTTP/1.1 not ready fails",
      replies: [500, 500],
      want: false,
      steps: [
        ["h2c", false],
        ["http1", false],
      ] as Step[],
    },
  ])("HTTP/2 auto-detection: $name", async ({ replies, want, steps }) => {
    const s = setup(
      [http({ periodSeconds: 1, timeoutSeconds: 1 })],
      (_c, i) => {
        const r = replies[i] ?? 200;
        return r < 0 ? { error: "GOAWAY" } : { status: r };
      },
      { http2AutoDetect: true },
    );
    expect(await settle(s.prober.probe(), s.run, 10)).toBe(want);
    const seen = s.transport.calls.map((c) => [c.http?.protocol, (c.http?.headers.length ?? 0) > 1]);
    expect(seen).toEqual(steps);
  });
});

describe("HTTP redirects (followed like Go's default client)", () => {
  it.each([
    {
      name: "to a ready page",
      replies: [{ status: 302, location: "/ok" }, { status: 200 }],
      want: true,
      urls: ["/ready", "/ok"],
    },
    {
      name: "to a failing page",
      replies: [{ status: 301, location: "http://127.0.0.1:9/x" }, { status: 500 }],
      want: false,
      urls: ["/ready", "/x"],
    },
    { name: "without Location stays a ready 3xx", replies: [{ status: 302 }], want: true, urls: ["/ready"] },
    { name: "304 is not followed", replies: [{ status: 304, location: "/x" }], want: true, urls: ["/ready"] },
  ])("$name", async ({ replies, want, urls }) => {
    const s = setup(
      [http({ periodSeconds: 1, timeoutSeconds: 1 })],
      (_c, i) => replies[i] ?? { status: 599 },
    );
    expect(await settle(s.prober.probe(), s.run, 10)).toBe(want);
    expect(s.transport.calls.map((c) => new URL(c.http?.url ?? "").pathname)).toEqual(urls);
    expect(s.transport.calls.every((c) => c.http?.headers.some(([n]) => n === "X-Test"))).toBe(true);
  });

  it("gives up after 10 redirects", async () => {
    const s = setup([http({ periodSeconds: 1, timeoutSeconds: 1 })], () => ({
      status: 307,
      location: "/again",
    }));
    expect(await settle(s.prober.probe(), s.run, 10)).toBe(false);
    expect(s.transport.calls).toHaveLength(11);
  });

  it("bounds the whole redirect chain by one timeout", async () => {
    const s = setup([http({ periodSeconds: 1, timeoutSeconds: 1 })], () => ({
      status: 302,
      location: "/next",
      afterMs: 400,
    }));
    const p = s.prober.probe();
    expect(await settle(p, s.run, 1100)).toBe(false);
    expect(s.transport.calls).toHaveLength(3);
  });
});

describe("gRPC probes", () => {
  it.each([
    { status: "SERVING" as const, want: true },
    { status: "NOT_SERVING" as const, want: false },
    { status: "UNKNOWN" as const, want: false },
  ])("$status ready: $want", async ({ status, want }) => {
    const s = setup([{ grpc: { port: 50051 }, periodSeconds: 1, timeoutSeconds: 1 }], () => ({
      grpcStatus: status,
    }));
    expect(await settle(s.prober.probe(), s.run, 10)).toBe(want);
    expect(s.transport.calls[0]?.grpc).toEqual({
      host: "127.0.0.1",
      port: 50051,
      service: "",
      userAgent: "kube-probe//",
    });
  });
});
