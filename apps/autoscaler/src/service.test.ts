import { ManualClock } from "@thaw/clock/testing";
import { emptyStat, type Stat } from "@thaw/protocol";
import { describe, expect, it } from "vitest";
import type { AutoscalerEvent } from "./events.js";
import { autoscalerMetrics } from "./metrics.js";
import { policyFor, type RevisionPolicy } from "./policy.js";
import type { RevisionKey } from "./revision.js";
import type { PodInfo, Scaler } from "./scalers/scaler.js";
import type { ScrapeResult } from "./scrape.js";
import { AutoscalerService } from "./service.js";

const rev: RevisionKey = { namespace: "default", name: "hello" };

/** A scaler whose pods appear when asked and become ready when the test says so. */
class FakeScaler implements Scaler {
  calls: number[] = [];
  list: PodInfo[] = [];
  listeners = new Set<(p: PodInfo[]) => void>();
  constructor(readonly clock: ManualClock) {}
  async scale(_r: RevisionKey, desired: number): Promise<void> {
    this.calls.push(desired);
    while (this.list.length < desired) {
      const n = this.list.length;
      this.list.push({
        name: `p${n}`,
        address: `127.0.0.1:${9000 + n}`,
        metricsUrl: `http://127.0.0.1:${9100 + n}/metrics`,
        ready: false,
        startedAt: this.clock.now(),
      });
    }
    this.list = this.list.slice(0, desired);
    this.emit();
  }
  pods(): PodInfo[] {
    return this.list.map((p) => ({ ...p }));
  }
  subscribe(_r: RevisionKey, cb: (p: PodInfo[]) => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
  readyAll(): void {
    for (const p of this.list) p.ready = true;
    this.emit();
  }
  emit(): void {
    for (const l of this.listeners) l(this.pods());
  }
  async close(): Promise<void> {}
}

function policy(autoscaling: Record<string, unknown>, cc = 2): RevisionPolicy {
  const p = policyFor({
    global: { "stable-window": "6s", "scale-to-zero-grace-period": "4s" },
    autoscaling,
    containerConcurrency: cc,
  });
  if (!p.ok) throw new Error(JSON.stringify(p.issues));
  return p.value;
}

function load(concurrency: number): Stat {
  return { ...emptyStat("activator"), averageConcurrentRequests: concurrency, requestCount: concurrency };
}

function setup(autoscaling: Record<string, unknown> = {}, scrape?: (url: string) => Promise<ScrapeResult>) {
  const clock = new ManualClock(1_800_000_000_000);
  const scaler = new FakeScaler(clock);
  const events: AutoscalerEvent[] = [];
  const service = new AutoscalerService({
    scaler,
    clock,
    random: () => 0,
    scrape: scrape ?? (async () => ({ ok: true, stat: emptyStat("pod") })),
  });
  service.on((e) => events.push(e));
  service.addRevision(rev, policy(autoscaling));
  service.start();
  const scales = () =>
    events.filter((e) => e.type === "scale").map((e) => (e.type === "scale" ? `${e.from}->${e.to}` : ""));
  return { clock, scaler, events, service, scales };
}

describe("AutoscalerService", () => {
  it("starts a revision at zero, in proxy mode, with exactly the contract's status fields", async () => {
    const { service, clock } = setup();
    await clock.advance(0);
    const s = service.status(rev);
    expect(Object.keys(s ?? {}).sort()).toEqual(
      [
        "desiredScale",
        "excessBurstCapacity",
        "lastColdStartMs",
        "mode",
        "name",
        "namespace",
        "panic",
        "panicConcurrency",
        "readyPods",
        "scaleError",
        "podProblem",
        "stableConcurrency",
        "warm",
      ].sort(),
    );
    expect(s).toMatchObject({ desiredScale: 0, readyPods: 0, mode: "proxy", lastColdStartMs: null });
  });

  it("publishes a status event when the status changes, not on every tick", async () => {
    const { service, clock, events } = setup();
    const statuses = () => events.filter((e) => e.type === "status").length;
    await clock.advance(0);
    expect(statuses()).toBe(1);
    await clock.advance(6000); // three idle ticks: nothing changed
    expect(statuses()).toBe(1);
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    expect(statuses()).toBeGreaterThan(1);
  });

  it("a pushed stat for a revision at zero pokes the decider at once (no 2 s wait)", async () => {
    const { service, clock, scaler, scales, events } = setup();
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    expect(scaler.calls).toEqual([1]);
    expect(scales()).toEqual(["0->1"]);
    const first = events.find((e) => e.type === "scale");
    expect(first?.type === "scale" && first.reason).toBe("request while scaled to zero");
  });

  it("load reported while no pod is ready runs the decider at once: a held burst's pods asked for in one step", async () => {
    const { service, clock, scaler, scales } = setup();
    service.record([{ rev, stat: load(1) }]); // the activation's poke
    await clock.advance(200);
    // The hook's first report: 10 held less the poke's 1, stamped with the poke's second.
    const second = Math.floor(clock.now() / 1000);
    service.record([{ rev, stat: { ...load(9), podName: "hook", timestamp: second } }]);
    await clock.advance(0);
    // ceil(10 / (2 × 0.7)) = 8 now, not at the decider's next 2 s tick.
    expect(scaler.calls).toEqual([1, 8]);
    expect(scales()).toEqual(["0->1", "1->8"]);
    expect(service.status(rev)).toMatchObject({ panic: true, panicConcurrency: 10 });
  });

  it("a revision whose pods never become ready goes back to zero once nothing is held (no pod keeps it up)", async () => {
    const { service, clock, scaler, scales } = setup();
    service.record([{ rev, stat: load(4) }]);
    await clock.advance(2000);
    // ceil(4 / (2 × 0.7)) = 3 pods asked for, none of which ever passes its probe (a crash loop).
    expect(service.status(rev)?.desiredScale).toBe(3);
    // Nothing is held any more and there is no ready pod to scrape: no stat at all for the stable window.
    await clock.advance(6000 + 2000);
    // Read as no load (not as "no data", which would keep the last reading of 4 and the 3 pods for good).
    expect(service.status(rev)).toMatchObject({ stableConcurrency: 0, panic: false });
    // The pods themselves go when the activation deadline (progress deadline + 30 s, 630 s) has passed.
    await clock.advance(640_000);
    expect(scaler.list).toHaveLength(0);
    expect(scales().at(-1)).toBe("3->0");
  });

  it("reports the cold start from the poke to the first ready pod", async () => {
    const { service, clock, scaler, events } = setup();
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(750);
    scaler.readyAll();
    await clock.advance(0);
    const cold = events.find((e) => e.type === "cold-start");
    expect(cold?.type === "cold-start" && cold.coldStartMs).toBe(750);
    expect(service.status(rev)?.lastColdStartMs).toBe(750);
  });

  it("scales up under load within max-scale and says why", async () => {
    const { service, clock, scaler, scales, events } = setup({ "max-scale": 4 });
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    scaler.readyAll();
    for (let i = 0; i < 3; i++) {
      service.record([{ rev, stat: load(40) }]);
      await clock.advance(1000);
    }
    expect(scales()).toEqual(["0->1", "1->4"]);
    const up = events.filter((e) => e.type === "scale")[1];
    expect(up?.type === "scale" && up.reason).toMatch(/capped by max-scale 4/);
    expect(service.status(rev)?.desiredScale).toBe(4);
  });

  it.each([
    // TBC 211 keeps the activator in the path, so the grace period has already passed in proxy mode.
    ["activator always in path (TBC 211)", {}, 6000, 10_000],
    // TBC 0: the pods serve directly; after going inactive the whole grace period is waited for.
    ["pods serving directly (TBC 0)", { "target-burst-capacity": 0 }, 10_000, 14_000],
  ])("goes back to zero after the stable window (+ grace) with no load: %s", async (_n, block, min, max) => {
    const { service, clock, scaler, scales } = setup(block);
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    scaler.readyAll();
    let at = 0;
    while (scaler.list.length > 0 && at < 60_000) {
      await clock.advance(1000);
      at += 1000;
    }
    expect(scales()).toEqual(["0->1", "1->0"]);
    expect(at).toBeGreaterThanOrEqual(min);
    expect(at).toBeLessThanOrEqual(max);
    expect(service.status(rev)).toMatchObject({ desiredScale: 0, mode: "proxy" });
  });

  it("scrapes ready pods every second and decides on their reports", async () => {
    const seen: string[] = [];
    const { service, clock, scaler, scales } = setup({ "max-scale": 3 }, async (url) => {
      seen.push(url);
      return { ok: true, stat: { ...emptyStat("p"), averageConcurrentRequests: 8, requestCount: 8 } };
    });
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    scaler.readyAll();
    await clock.advance(4000);
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(seen[0]).toBe("http://127.0.0.1:9100/metrics");
    expect(scales()).toEqual(["0->1", "1->3"]);
  });

  it("counts stats for unknown revisions instead of creating them", () => {
    const { service } = setup();
    expect(service.record([{ rev: { namespace: "x", name: "y" }, stat: load(1) }])).toEqual({ unknown: 1 });
    expect(service.revisions()).toHaveLength(1);
  });

  it("stop() ends the loops: no further ticks or scrapes", async () => {
    let scrapes = 0;
    const { service, clock, scaler } = setup({}, async () => {
      scrapes++;
      return { ok: true, stat: emptyStat("p") };
    });
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    scaler.readyAll();
    await service.stop();
    const before = scrapes;
    await clock.advance(10_000);
    expect(scrapes).toBe(before);
    expect(clock.pending).toBe(0);
  });
});

describe("autoscaler metrics (docs/metrics.md)", () => {
  const L = '{namespace="default",revision="hello"}';
  it("expose the decider's outputs, requested and ready pods, and the cold start", async () => {
    const { service, clock, scaler } = setup({ "max-scale": 4 });
    const m = autoscalerMetrics(service);
    expect(m.registry.render()).toContain(`thaw_autoscaler_desired_pods${L} 0\n`);
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(500);
    scaler.readyAll();
    for (let i = 0; i < 3; i++) {
      service.record([{ rev, stat: load(40) }]);
      await clock.advance(1000);
    }
    const text = m.registry.render();
    expect(text).toContain(`thaw_autoscaler_requested_pods${L} 4\n`);
    expect(text).toContain(`thaw_autoscaler_ready_pods${L} 1\n`);
    // 40 concurrent at a target of 1.4 per pod (cc 2 x 70 %) wants far more than max-scale allows.
    const desired = Number(/thaw_autoscaler_desired_pods\{[^}]*\} (\S+)/.exec(text)?.[1]);
    expect(desired).toBeGreaterThan(4);
    expect(text).toContain(`thaw_autoscaler_panic_mode${L} ${service.status(rev)?.panic ? 1 : 0}\n`);
    expect(text).toContain(
      `thaw_autoscaler_stable_concurrency${L} ${service.status(rev)?.stableConcurrency}\n`,
    );
    expect(text).toContain(`thaw_autoscaler_target_concurrency${L} 1.4\n`);
    expect(text).toMatch(/thaw_autoscaler_excess_burst_capacity\{[^}]*\} -?\d/);
    expect(text).toContain(`thaw_autoscaler_cold_start_seconds_count${L} 1\n`);
    expect(text).toContain(`thaw_autoscaler_cold_start_seconds_sum${L} 0.5\n`);
    expect(text).toMatch(/^# TYPE thaw_cold_start_phase_seconds histogram$/m);
  });

  it("show a pod ready the moment the scaler says so, while the scale request that made it is pending", async () => {
    const { service, clock, scaler } = setup();
    const m = autoscalerMetrics(service);
    // A local scaler's scale() resolves once its process is up; the pod may turn ready before that, and a
    // scrape then must not show it missing (the reconcile that notices it is still awaiting the scale).
    let release = () => {};
    scaler.scale = async (_r, desired) => {
      scaler.calls.push(desired);
      scaler.list = [{ name: "p0", address: "127.0.0.1:9000", ready: false, startedAt: clock.now() }];
      await new Promise<void>((r) => (release = r));
    };
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    expect(scaler.calls).toEqual([1]);
    scaler.readyAll();
    expect(m.registry.render()).toContain(`thaw_autoscaler_ready_pods${L} 1\n`);
    release();
  });

  it("count failed pod scrapes per revision", async () => {
    let fail = false;
    const { service, clock, scaler } = setup(
      {},
      async (): Promise<ScrapeResult> =>
        fail
          ? { ok: false, error: "connection refused", maybeMesh: false }
          : { ok: true, stat: emptyStat("p") },
    );
    const m = autoscalerMetrics(service);
    service.record([{ rev, stat: load(1) }]);
    await clock.advance(0);
    scaler.readyAll();
    await clock.advance(1000);
    expect(m.registry.render()).toContain(`thaw_autoscaler_scrape_errors_total${L} 0\n`);
    fail = true;
    await clock.advance(2000);
    const errors = Number(
      /thaw_autoscaler_scrape_errors_total\{[^}]*\} (\d+)/.exec(m.registry.render())?.[1],
    );
    expect(errors).toBeGreaterThanOrEqual(2);
  });

  it("drop a removed revision's series", async () => {
    const { service } = setup();
    const m = autoscalerMetrics(service);
    expect(m.registry.render()).toContain('revision="hello"');
    service.removeRevision(rev);
    expect(m.registry.render()).not.toContain('revision="hello"');
  });
});

describe("AutoscalerService: warm before need", () => {
  function warmSetup(schedules: unknown[]) {
    const clock = new ManualClock(Date.UTC(2027, 0, 15, 8, 0)); // a Friday, 08:00 UTC
    const scaler = new FakeScaler(clock);
    const events: AutoscalerEvent[] = [];
    const service = new AutoscalerService({ scaler, clock, random: () => 0 });
    service.on((e) => events.push(e));
    const p = policyFor({
      global: { "stable-window": "6s", "scale-to-zero-grace-period": "4s" },
      containerConcurrency: 2,
      schedules,
    });
    if (!p.ok) throw new Error(JSON.stringify(p.issues));
    service.addRevision(rev, p.value);
    service.start();
    const scales = () =>
      events.flatMap((e) => (e.type === "scale" ? [`${e.from}->${e.to}: ${e.reason}`] : []));
    return { clock, scaler, service, scales };
  }

  it("holds the window's min-scale with no load while it is open, then scales to zero once it closes", async () => {
    const { clock, scaler, service, scales } = warmSetup([
      { name: "morning", start: "0 8 * * *", duration: "2m", minScale: 2 },
    ]);
    await clock.advance(0);
    expect(scales()).toEqual(["0->2: schedule window morning: min-scale 2"]);
    scaler.readyAll();
    await clock.advance(60_000);
    expect(service.status(rev)?.warm.window?.name).toBe("morning");
    expect(service.status(rev)?.desiredScale).toBe(2);
    // 08:02 the window closes: no load, so the stable window and the grace period take it to zero.
    await clock.advance(60_000 + 20_000);
    expect(service.status(rev)?.warm.window).toBeNull();
    expect(scales().at(-1)).toMatch(/^2->0/);
  });

  it("a wake hint holds 1 pod for its TTL, a later one extends it, and neither enters the metrics", async () => {
    const { clock, scaler, service, scales } = warmSetup([]);
    await clock.advance(0);
    expect(service.hint(rev, 10_000)).toBe(clock.now() + 10_000);
    await clock.advance(0);
    expect(scales()).toEqual(["0->1: wake hint: kept at 1 pod without load"]);
    scaler.readyAll();
    await clock.advance(8_000);
    service.hint(rev, 10_000);
    await clock.advance(8_000);
    expect(service.status(rev)?.desiredScale).toBe(1);
    expect(service.status(rev)?.stableConcurrency).toBe(0);
    await clock.advance(20_000);
    expect(service.status(rev)?.desiredScale).toBe(0);
  });
});
