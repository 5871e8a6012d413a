import { ManualClock } from "@thaw/clock/testing";
import { describe, expect, it } from "vitest";
import { QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES } from "./classify.js";
import { DEFAULT_DRAIN_QUIET_PERIOD_MS, Drainer, type DrainerOptions } from "./drainer.js";

const plain = () => new Request("http://x/work");
const kubelet = () => new Request("http://x/", { headers: { "User-Agent": "kube-probe/1.30" } });
const kprobe = (hash?: string) =>
  new Request("http://x/healthz", {
    headers: { "K-Network-Probe": "probe", ...(hash === undefined ? {} : { "K-Network-Hash": hash }) },
  });

function setup(options: Partial<DrainerOptions> = {}) {
  const clock = new ManualClock(0);
  const drainer = new Drainer({ clock, quietPeriodMs: 1000, ...options });
  let calls = 0;
  const next = () => {
    calls++;
    return new Response("app");
  };
  const send = (req: Request) => drainer.handle(req, next);
  return { clock, drainer, send, calls: () => calls };
}

function track(p: Promise<void>) {
  const t = { done: false };
  void p.then(() => {
    t.done = true;
  });
  return t;
}

describe("Drainer quiet period", () => {
  it.each([
    { name: "unset", q: undefined, want: DEFAULT_DRAIN_QUIET_PERIOD_MS },
    { name: "zero", q: 0, want: 45_000 },
    { name: "negative", q: -5, want: 45_000 },
    { name: "queue-proxy's 30 s", q: 30_000, want: 30_000 },
  ])("$name -> $want ms", ({ q, want }) => {
    expect(new Drainer({ clock: new ManualClock(), quietPeriodMs: q }).quietPeriodMs).toBe(want);
  });
});

describe("Drainer answers", () => {
  const rows: {
    name: string;
    req: () => Request;
    draining: boolean;
    status: number;
    body: string;
    app: boolean;
  }[] = [
    {
      name: "plain request goes to the app",
      req: plain,
      draining: false,
      status: 200,
      body: "app",
      app: true,
    },
    {
      name: "plain request while draining still goes to the app",
      req: plain,
      draining: true,
      status: 200,
      body: "app",
      app: true,
    },
    { name: "kubelet probe healthy", req: kubelet, draining: false, status: 200, body: "", app: false },
    {
      name: "kubelet probe while draining",
      req: kubelet,
      draining: true,
      status: 503,
      body: "shutting down\n",
      app: false,
    },
    {
      name: "network probe echo",
      req: () => kprobe("h"),
      draining: false,
      status: 200,
      body: "",
      app: false,
    },
    {
      name: "network probe without hash",
      req: () => kprobe(),
      draining: false,
      status: 400,
      body: 'a probe request must contain a non-empty "K-Network-Hash" header\n',
      app: false,
    },
    {
      name: "network probe while draining",
      req: () => kprobe("h"),
      draining: true,
      status: 503,
      body: "shutting down\n",
      app: false,
    },
  ];
  it.each(rows)("$name", async ({ req, draining, status, body, app }) => {
    const s = setup();
    if (draining) void s.drainer.drain();
    const res = await s.send(req());
    expect(res.status).toBe(status);
    expect(await res.text()).toBe(body);
    expect(s.calls()).toBe(app ? 1 : 0);
  });

  it("echoes the hash header", async () => {
    const res = await setup().send(kprobe("abc"));
    expect(res.headers.get("K-Network-Hash")).toBe("abc");
  });

  it("uses the custom health check for kubelet and prefixed user agents only", async () => {
    const s = setup({
      healthCheckUserAgentPrefixes: QUEUE_PROXY_HEALTH_CHECK_USER_AGENT_PREFIXES,
      healthCheck: () => new Response("custom", { status: 418 }),
    });
    const ua = (value: string) => new Request("http://x/", { headers: { "User-Agent": value } });
    expect((await s.send(ua("kube-probe/1"))).status).toBe(418);
    expect((await s.send(ua("Knative-Activator-Probe"))).status).toBe(418);
    expect((await s.send(ua("Knative-Autoscaling-Probe"))).status).toBe(418);
    expect((await s.send(ua("curl/8"))).status).toBe(200);
    // knative/pkg's rule: K-Kubelet-Probe alone is not a health check for the drainer.
    expect((await s.send(new Request("http://x/", { headers: { "K-Kubelet-Probe": "1" } }))).status).toBe(
      200,
    );
    expect(s.calls()).toBe(2);
  });
});

describe("Drainer timing", () => {
  it("drain resolves one quiet period after the last non-probe request", async () => {
    const s = setup();
    const d = track(s.drainer.drain());
    expect(s.drainer.quietDeadline).toBe(1000);
    await s.clock.advance(600);
    await s.send(plain()); // restarts: deadline 1600
    expect(s.drainer.quietDeadline).toBe(1600);
    await s.clock.advance(600);
    await s.send(kubelet()); // probes do not restart
    await s.send(kprobe("h"));
    expect(s.drainer.quietDeadline).toBe(1600);
    await s.clock.advance(399);
    expect(d.done).toBe(false);
    await s.clock.advance(1);
    expect(d.done).toBe(true);
    expect(s.drainer.draining).toBe(true);
    expect(s.drainer.quietDeadline).toBeUndefined();
  });

  it("requests before drain() do not start a timer", async () => {
    const s = setup();
    await s.send(plain());
    expect(s.drainer.quietDeadline).toBeUndefined();
    expect(s.clock.pending).toBe(0);
  });

  it("concurrent drain() calls share one timer; a later call after the end resolves at once", async () => {
    const s = setup();
    const a = track(s.drainer.drain());
    await s.clock.advance(500);
    const b = track(s.drainer.drain());
    expect(s.clock.pending).toBe(1);
    await s.clock.advance(500);
    expect(a.done && b.done).toBe(true);
    const c = track(s.drainer.drain());
    await s.clock.advance(0);
    expect(c.done).toBe(true);
  });

  it("requests after the drain finished do not restart it", async () => {
    const s = setup();
    void s.drainer.drain();
    await s.clock.advance(1000);
    await s.send(plain());
    expect(s.clock.pending).toBe(0);
    expect((await s.send(kubelet())).status).toBe(503);
  });

  it("reset() releases waiters, stops the timer and makes probes healthy again", async () => {
    const s = setup();
    const d = track(s.drainer.drain());
    await s.clock.advance(100);
    s.drainer.reset();
    await s.clock.advance(0);
    expect(d.done).toBe(true);
    expect(s.drainer.draining).toBe(false);
    expect(s.clock.pending).toBe(0);
    expect((await s.send(kubelet())).status).toBe(200);
    // A new drain waits a whole quiet period again.
    const again = track(s.drainer.drain());
    await s.clock.advance(999);
    expect(again.done).toBe(false);
    await s.clock.advance(1);
    expect(again.done).toBe(true);
  });

  it("noteRequest() restarts the timer like a handled request", async () => {
    const s = setup();
    void s.drainer.drain();
    await s.clock.advance(700);
    s.drainer.noteRequest();
    expect(s.drainer.quietDeadline).toBe(1700);
    expect(s.clock.pending).toBe(1);
  });

  it("intercept() answers probes and leaves app requests alone without touching the timer", async () => {
    const s = setup();
    void s.drainer.drain();
    await s.clock.advance(10);
    expect(s.drainer.intercept(plain())).toBeUndefined();
    expect(s.drainer.quietDeadline).toBe(1000);
    expect((await s.drainer.intercept(kubelet()))?.status).toBe(503);
  });
});
