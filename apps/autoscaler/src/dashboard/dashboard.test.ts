import { ManualClock } from "@thaw/clock/testing";
import type { ColdStartRecord } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import type { RevisionStatus } from "../events.js";
import { policyFor } from "../policy.js";
import type { RevisionKey } from "../revision.js";
import type { PodInfo, Scaler } from "../scalers/scaler.js";
import { autoscalerApp } from "../server.js";
import { AutoscalerService } from "../service.js";
import { DashboardFeed, FIRST_BYTE_WAIT_MS } from "./feed.js";

const TOKEN = "dashboard-token-0123456789";
const rev: RevisionKey = { namespace: "default", name: "hello" };

/** Accepts every scale request; no pods ever become ready. */
class NoPods implements Scaler {
  async scale(): Promise<void> {}
  pods(): PodInfo[] {
    return [];
  }
  subscribe(): () => void {
    return () => {};
  }
  async close(): Promise<void> {}
}

/** A scaler whose pod is ready `ms` after the scale request. */
function readyAfter(clock: ManualClock, ms: number): Scaler {
  const listeners: ((pods: PodInfo[]) => void)[] = [];
  let replicas = 0;
  const pods = (): PodInfo[] =>
    replicas > 0 ? [{ name: "p1", address: "127.0.0.1:1", ready: true, startedAt: clock.now() }] : [];
  return {
    async scale(_r, n) {
      clock.setTimeout(() => {
        replicas = n;
        for (const l of listeners) l(pods());
      }, ms);
    },
    pods,
    subscribe(_r, l) {
      listeners.push(l);
      return () => {};
    },
    async close() {},
  };
}

function setup(windowMs = 600_000) {
  const clock = new ManualClock(Date.parse("2026-12-01T15:00:00Z"));
  const service = new AutoscalerService({ scaler: new NoPods(), clock });
  const p = policyFor({ global: {}, autoscaling: { target: 5 }, containerConcurrency: 10 });
  if (!p.ok) throw new Error("policy");
  service.addRevision(rev, p.value);
  const feed = new DashboardFeed({ source: service, clock, windowMs, coldStartsFromService: true });
  const app = autoscalerApp({ service, clock, token: TOKEN, dashboard: feed });
  return { clock, service, feed, app };
}

/** The SSE events in the first chunks of a stream, until `count` events arrived (then the stream is left). */
async function events(res: Response, count: number): Promise<{ event: string; data: unknown }[]> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const dec = new TextDecoder();
  let text = "";
  const out: { event: string; data: unknown }[] = [];
  for (let i = 0; i < 100 && out.length < count; i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += dec.decode(value, { stream: true });
    const blocks = text.split("\n\n");
    text = blocks.pop() ?? "";
    for (const b of blocks) {
      const event = /^event: (.*)$/m.exec(b)?.[1];
      const data = /^data: (.*)$/m.exec(b)?.[1];
      if (event && data) out.push({ event, data: JSON.parse(data) });
    }
  }
  await reader.cancel();
  return out;
}

/** thaw-autoscaler's service with hello (ready 800 ms after a scale-up) and its dashboard feed, on a manual clock. */
function autoscalerFeed(): { clock: ManualClock; service: AutoscalerService; feed: DashboardFeed } {
  const clock = new ManualClock(Date.parse("2026-12-01T15:00:00Z"));
  const service = new AutoscalerService({ scaler: readyAfter(clock, 800), clock });
  const p = policyFor({ global: {}, autoscaling: {}, containerConcurrency: 1 });
  if (!p.ok) throw new Error("policy");
  service.addRevision(rev, p.value);
  return { clock, service, feed: new DashboardFeed({ source: service, clock, coldStartsFromService: true }) };
}

describe("the dashboard's SSE stream and page on thaw-autoscaler", () => {
  it("needs the token: bearer or the sign-in cookie; a wrong one is refused", async () => {
    const { app } = setup();
    const url = "http://autoscaler/_thaw/api/stream";
    expect((await app.request(url)).status).toBe(401);
    expect((await app.request(url, { headers: { authorization: "Bearer wrong-token-000000" } })).status).toBe(
      401,
    );
    expect((await app.request(url, { headers: { cookie: "thaw_token=wrong-token-000000" } })).status).toBe(
      401,
    );
    const ok = await app.request(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toContain("text/event-stream");
    await ok.body?.cancel();
    for (const path of ["/_thaw/api/revisions", "/_thaw/assets/uplot.js"]) {
      expect((await app.request(`http://autoscaler${path}`)).status).toBe(401);
    }
  });

  it("the sign-in sets an HttpOnly cookie that opens the page, its assets and the stream", async () => {
    const { app } = setup();
    const page = await app.request("http://autoscaler/_thaw/");
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('name="token"');
    const wrong = await app.request("http://autoscaler/_thaw/login", {
      method: "POST",
      body: new URLSearchParams({ token: "not-it-at-all-0000" }),
    });
    expect(await wrong.text()).toContain("That is not the token");
    const login = await app.request("http://autoscaler/_thaw/login", {
      method: "POST",
      body: new URLSearchParams({ token: TOKEN }),
    });
    expect(login.status).toBe(303);
    const setCookie = login.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    const cookie = setCookie.split(";")[0] as string;
    const signed = await app.request("http://autoscaler/_thaw/", { headers: { cookie } });
    expect(signed.status).toBe(200);
    const html = await signed.text();
    expect(html).toContain('src="/_thaw/assets/uplot.js"');
    expect(html).not.toMatch(/https?:\/\//);
    const js = await app.request("http://autoscaler/_thaw/assets/uplot.js", { headers: { cookie } });
    expect(await js.text()).toContain("uPlot");
    const license = await app.request("http://autoscaler/_thaw/assets/uplot-license.txt", {
      headers: { cookie },
    });
    expect(await license.text()).toContain("MIT");
    const stream = await app.request("http://autoscaler/_thaw/api/stream", { headers: { cookie } });
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
  });

  it("on connect replays the kept samples (bounded to the window), then the scale events", async () => {
    const { clock, service, feed, app } = setup(5_000);
    for (let i = 0; i < 8; i++) {
      feed.sampleNow();
      await clock.advance(1000);
    }
    feed.start();
    // A request while scaled to zero: the poke, a scale event 0 -> 1 with the decider's reason.
    service.poke(rev);
    await new Promise((r) => setTimeout(r, 20));
    const replay = feed.replay();
    const samples = replay.filter((e) => e.type === "sample");
    // 5 s at one a second: the oldest samples are gone.
    expect(samples).toHaveLength(5);
    const res = await app.request("http://autoscaler/_thaw/api/stream", {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const got = await events(res, replay.length);
    expect(got.map((e) => e.event)).toEqual(replay.map((e) => e.type));
    const first = got[0]?.data as { t: number; revisions: Record<string, unknown>[] };
    expect(first.revisions[0]).toMatchObject({
      namespace: "default",
      revision: "hello",
      ready: 0,
      desired: 0,
      mode: "proxy",
      target: 3.5, // target 5 at Knative's 70 % target utilization
      queueDepth: null,
    });
    const scale = got.find((e) => e.event === "scale")?.data;
    expect(scale).toMatchObject({ namespace: "default", revision: "hello", from: 0, to: 1 });
    expect((scale as { reason: string }).reason).toBe("request while scaled to zero");
    feed.stop();
  });

  it("in a cluster, the pod's own phases from its status, and the EndpointSlice listing it", async () => {
    const { clock, service, feed } = autoscalerFeed();
    feed.start();
    const seen: string[] = [];
    feed.on((e) => seen.push(e.type));
    autoscalerApp({ service, clock, dashboard: feed });
    service.poke(rev);
    await clock.advance(100);
    const t = clock.now();
    feed.podPhase(rev, "podCreated", t, "p1");
    feed.podPhase(rev, "podCreated", t + 10, "p2"); // a second pod: not this cold start's first
    feed.podPhase(rev, "podScheduled", t + 20, "p1");
    feed.podPhase(rev, "sandboxReady", t + 300, "p1");
    feed.podPhase(rev, "podStarted", t + 450, "p1");
    feed.podPhase(rev, "firstReady", t + 690, "p1");
    await clock.advance(1000);
    // Ready and in endpoints: the record waits for an activator's first byte (its note on the stat link).
    expect(feed.replay().some((e) => e.type === "coldstart")).toBe(false);
    await clock.advance(40);
    const firstByte = clock.now();
    expect(service.firstByte({ ...rev, at: firstByte })).toBe(true);
    // A revision this autoscaler does not scale is not news.
    expect(service.firstByte({ namespace: "default", name: "other", at: firstByte })).toBe(false);
    const record = feed.replay().find((e) => e.type === "coldstart")?.data as ColdStartRecord;
    expect(record.phases.map((x) => x.phase)).toEqual([
      "queued",
      "scaleDecision",
      "podCreated",
      "podScheduled",
      "sandboxReady",
      "podStarted",
      "firstReady",
      "endpointsReady",
      "firstByte",
    ]);
    expect(record.pod).toBe("p1");
    const listed = record.phases.find((x) => x.phase === "endpointsReady")?.at ?? 0;
    expect(record.phases.at(-1)).toMatchObject({ phase: "firstByte", at: firstByte, ms: firstByte - listed });
    expect(record.totalMs).toBe(firstByte - record.startedAt);
    expect(record.phases.reduce((n, x) => n + x.ms, 0)).toBe(record.totalMs);
    feed.stop();
    await service.stop();
  });

  it("thaw-autoscaler's cold starts: queued, scale decision and first ready from its own events", async () => {
    const { clock, service, feed } = autoscalerFeed();
    feed.start();
    const seen: string[] = [];
    feed.on((e) => seen.push(e.type));
    const app = autoscalerApp({ service, clock, dashboard: feed });
    service.poke(rev);
    await clock.advance(1000);
    // No activator tells a first byte (woken by /v1/activate alone): recorded without one after the wait.
    expect(feed.replay().some((e) => e.type === "coldstart")).toBe(false);
    await clock.advance(FIRST_BYTE_WAIT_MS);
    const cold = feed.replay().find((e) => e.type === "coldstart");
    expect(cold?.type).toBe("coldstart");
    const record = cold?.data as ColdStartRecord;
    expect(record.phases.map((x) => x.phase)).toEqual(["queued", "scaleDecision", "firstReady"]);
    expect(record.totalMs).toBe(800);
    expect(record.phases.reduce((n, x) => n + x.ms, 0)).toBe(800);
    expect(seen).toContain("scale");
    // The same record as a Prometheus histogram, by phase (recorded from the moment the app is made).
    const text = await (await app.request("http://autoscaler/metrics")).text();
    const count = (phase: string) =>
      new RegExp(
        `thaw_cold_start_phase_seconds_count\\{namespace="default",revision="hello",phase="${phase}"\\} (\\d+)`,
      ).exec(text)?.[1];
    expect([count("scaleDecision"), count("firstReady"), count("queued")]).toEqual(["1", "1", undefined]);
    feed.stop();
    await service.stop();
  });
});

describe("an activator's first byte ends thaw-autoscaler's cold-start record", () => {
  it("told before the scaler saw the pod ready (the activator probes pods itself), it is kept for the record", async () => {
    const { clock, service, feed } = autoscalerFeed();
    feed.start();
    // A first byte from before this cold start is not its.
    service.firstByte({ ...rev, at: clock.now() - 5000 });
    service.poke(rev);
    await clock.advance(700);
    const early = clock.now();
    service.firstByte({ ...rev, at: early });
    await clock.advance(300);
    const record = feed.replay().find((e) => e.type === "coldstart")?.data as ColdStartRecord;
    expect(record.phases.map((x) => x.phase)).toEqual(["queued", "scaleDecision", "firstReady", "firstByte"]);
    // Before the scaler's ready: the record ends at the ready, the first byte adds no time of its own.
    expect(record.phases.at(-1)).toMatchObject({ phase: "firstByte", ms: 0 });
    expect(record.totalMs).toBe(800);
    feed.stop();
    await service.stop();
  });
});

describe("one figure per cold start (issue 27.5)", () => {
  it("the status API, the table's samples and the timeline give the cold start its record's figure", async () => {
    const clock = new ManualClock(Date.parse("2026-12-01T15:00:00Z"));
    // The service measures a start from its scale decision to the ready pod (800 ms here); thaw up's
    // recorder from the held request to its first byte (812 ms), the record the timeline draws.
    const service = new AutoscalerService({ scaler: readyAfter(clock, 800), clock });
    const p = policyFor({ global: {}, autoscaling: {}, containerConcurrency: 1 });
    if (!p.ok) throw new Error("policy");
    service.addRevision(rev, p.value);
    const feed = new DashboardFeed({ source: service, clock });
    const app = autoscalerApp({ service, clock, dashboard: feed });
    const api = async () =>
      ((await (await app.request("http://127.0.0.1/_thaw/api/revisions")).json()) as RevisionStatus[])[0]
        ?.lastColdStartMs;
    const started = clock.now();
    service.poke(rev);
    await clock.advance(1000);
    // No record yet: the service's own figure.
    expect(await api()).toBe(800);
    feed.coldStart({
      namespace: "default",
      revision: "hello",
      id: "default/hello#1",
      startedAt: started,
      phases: [
        { phase: "queued", at: started, ms: 0 },
        { phase: "firstByte", at: started + 812, ms: 812 },
      ],
      totalMs: 812,
    });
    expect(await api()).toBe(812);
    expect(feed.sampleNow().revisions[0]?.lastColdStartMs).toBe(812);
    const timeline = feed.replay().find((e) => e.type === "coldstart")?.data as ColdStartRecord;
    expect(timeline.totalMs).toBe(812);
    await service.stop();
  });
});
