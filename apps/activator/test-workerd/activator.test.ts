import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { emptyStat, encodeWireStatMessages } from "@thaw/protocol";
import { describe, expect, inject, it, vi } from "vitest";
import { defaultRevisionConfig } from "../src/revisions-json.js";

const origin = () => `127.0.0.1:${inject("originPort")}`;
const control = async (what: string) =>
  (await (await fetch(`http://${origin()}/__control/${what}`, { method: "POST" })).json()) as {
    started: boolean;
    pokes: number;
    requests: number;
    scales: { name: string; replicas: number }[];
    refused: number;
  };
const stubFor = (name: string) =>
  env.REVISION_ACTIVATOR.get(env.REVISION_ACTIVATOR.idFromName(`default/${name}`));

describe("activator Worker + RevisionActivator Durable Object (workerd)", () => {
  it("runs in workerd", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
  });

  it("single-flight activation: 50 concurrent cold requests, one scaler poke, all answered", async () => {
    await control("reset");
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        exports.default
          .fetch(`http://activator/item/${i}`, {
            headers: { "knative-serving-namespace": "default", "knative-serving-revision": "cold" },
          })
          .then(async (r) => ({ status: r.status, body: await r.text() })),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(results.map((r) => r.body)).size).toBe(50);
    expect(results[0]?.body).toMatch(/^ok GET \/item\/\d+ activator $/);
    const state = await control("state");
    expect(state.pokes).toBe(1);
    expect(state.requests).toBe(50);
    // Releases travel in waitUntil RPCs that may land just after the responses.
    await vi.waitFor(async () => expect((await stubFor("cold").stats()).leases).toBe(0), {
      timeout: 2000,
      interval: 20,
    });
    expect((await stubFor("cold").stats()).probeRounds).toBeGreaterThan(0);
  });

  it("alarm-driven probing: a pod is admitted only once an alarm's probe passes", async () => {
    await control("reset");
    const stub = stubFor("probe");
    await stub.configure({ namespace: "default", name: "probe" }, defaultRevisionConfig, [origin()]);
    await runDurableObjectAlarm(stub); // pod not started: the probe fails
    expect((await stub.snapshot()).endpoints).toEqual([]);
    // A re-probe is scheduled. On a loaded machine it may already be running (a running alarm is not set
    // until it re-arms itself), so look until one is set.
    await vi.waitFor(
      async () =>
        expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).not.toBeNull(),
      { timeout: 5000, interval: 20 },
    );
    // Park the next alarm far away: from here on only the alarms this test runs may probe. On a loaded
    // machine the 200 ms re-probe can fire in real time first and re-arm itself over the parked one, so
    // park until it stays parked once any alarm in flight has finished.
    for (let i = 0; i < 20; i++) {
      await runInDurableObject(stub, (_i, state) => state.storage.setAlarm(Date.now() + 3_600_000));
      await new Promise((r) => setTimeout(r, 500));
      const at = await runInDurableObject(stub, (_i, state) => state.storage.getAlarm());
      if (at !== null && at > Date.now() + 1_800_000) break;
    }
    await control("start");
    expect((await stub.snapshot()).endpoints).toEqual([]);
    const before = (await stub.stats()).probeRounds;
    for (let i = 0; i < 20 && (await stub.snapshot()).endpoints.length === 0; i++)
      await runDurableObjectAlarm(stub);
    expect((await stub.snapshot()).endpoints).toEqual([origin()]);
    expect((await stub.stats()).probeRounds).toBeGreaterThan(before);
    // Everything healthy and no lease held: nothing left to schedule.
    expect(await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())).toBeNull();
  });

  it("capacity limits: containerConcurrency 1, queue of 2, the 4th waiter is refused", async () => {
    await control("start");
    const stub = stubFor("cap");
    await stub.configure(
      { namespace: "default", name: "cap" },
      { ...defaultRevisionConfig, containerConcurrency: 1, maxQueue: 2 },
      [origin()],
    );
    // A probe round can miss its 300 ms deadline on a loaded machine: run alarms until the pod is in.
    for (let i = 0; i < 50 && (await stub.snapshot()).endpoints.length === 0; i++) {
      await runDurableObjectAlarm(stub);
      await new Promise((r) => setTimeout(r, 20));
    }
    const first = await stub.acquire("w1", 5000);
    expect(first.ok).toBe(true);
    const second = stub.acquire("w2", 60_000);
    const third = stub.acquire("w3", 60_000);
    // RPCs issued together may arrive in any order: let both waiters park before the fourth comes.
    await vi.waitFor(async () => expect((await stub.stats()).waiting).toBe(2), {
      timeout: 5000,
      interval: 10,
    });
    const fourth = await stub.acquire("w4", 5000);
    expect(fourth).toMatchObject({
      ok: false,
      code: "ERR_QUEUE_FULL",
      message: "pending request queue full",
    });
    expect(await stub.stats()).toMatchObject({ capacity: 1, waiting: 2, leases: 1 });
    if (first.ok) await stub.release(first.leaseId);
    // Whichever of w2/w3 reached the object first gets the freed slot; the other is cancelled.
    const next = await Promise.race([
      second.then((r) => ({ id: "w2", r })),
      third.then((r) => ({ id: "w3", r })),
    ]);
    expect(next.r.ok).toBe(true);
    const other = next.id === "w2" ? "w3" : "w2";
    await stub.cancel(other);
    expect(await (other === "w2" ? second : third)).toMatchObject({ ok: false, code: "ERR_CANCELLED" });
    if (next.r.ok) await stub.release(next.r.leaseId);
    expect(await stub.stats()).toMatchObject({ inFlight: 0, leases: 0 });
  });

  it("edge decider: load waiting in the Durable Object scales the revision up through the webhook", async () => {
    await control("start");
    const stub = stubFor("decide");
    await stub.configure(
      { namespace: "default", name: "decide" },
      { ...defaultRevisionConfig, containerConcurrency: 1 },
      [origin()],
    );
    for (let i = 0; i < 50 && (await stub.snapshot()).endpoints.length === 0; i++) {
      await runDurableObjectAlarm(stub);
      await new Promise((r) => setTimeout(r, 20));
    }
    const first = await stub.acquire("d0", 60_000);
    expect(first.ok).toBe(true);
    // Four more wait behind the one slot: five requests in the revision.
    const waiting = ["d1", "d2", "d3", "d4"].map((id) => stub.acquire(id, 60_000));
    await new Promise((r) => setTimeout(r, 300));
    const desired = await stub.decide();
    expect(desired).toBeGreaterThan(1);
    expect(await stub.scaleHistory()).toEqual([desired]);
    expect((await control("state")).scales).toContainEqual({ name: "decide", replicas: desired });
    for (const id of ["d1", "d2", "d3", "d4"]) await stub.cancel(id);
    await Promise.all(waiting);
    if (first.ok) await stub.release(first.leaseId);
  });

  it("edge decider: alarms drive 0 -> N -> 0 with the cluster's grace rule, each change a signed webhook", async () => {
    // The origin's pod answers its probes (it is ready): a revision whose pods never became ready is held
    // at its count for Knative's activation timeout instead of being scaled to zero.
    await control("start");
    const stub = stubFor("zero");
    const fast = { "stable-window": "6s", "scale-to-zero-grace-period": "4s", target: "1" };
    const cfg = { ...defaultRevisionConfig, containerConcurrency: 1 };
    await stub.configure({ namespace: "default", name: "zero" }, cfg, [origin()], undefined, fast);
    // One decider tick: the gateway's report for the last 2 s (if any), 2 s of decider time, the alarm.
    const tick = async (concurrent: number) => {
      if (concurrent > 0) await stub.load(concurrent * 2000, concurrent * 10);
      await stub.advanceDeciderClock(2000);
      return runDurableObjectAlarm(stub);
    };
    const armed = async () =>
      (await runInDurableObject(stub, (_i, state) => state.storage.getAlarm())) !== null;
    for (let i = 0; i < 5; i++) {
      // workerd also runs the alarm by itself once it is due (a tick slower than 2 s on a loaded machine), so
      // this run may find it already taken: what must hold is that a busy decider is armed again after it.
      await tick(4);
      await vi.waitFor(async () => expect(await armed()).toBe(true), { timeout: 10_000, interval: 20 });
    }
    const up = await stub.scaleHistory();
    expect(up[0]).toBeGreaterThan(1);
    let idleTicks = 0;
    while ((await stub.scaleHistory()).at(-1) !== 0 && idleTicks < 40) {
      await tick(0);
      idleTicks++;
    }
    const history = await stub.scaleHistory();
    expect(history.at(-1)).toBe(0);
    // applyScale's rule: not before the 6 s stable window is idle (3 ticks of 2 s), and only once the
    // activator (here the edge itself) has been in the path for the 4 s grace period.
    expect(idleTicks).toBeGreaterThanOrEqual(3);
    // Nothing left to decide at zero: no alarm is armed for the decider any more.
    await runInDurableObject(stub, (_i, state) => state.storage.deleteAlarm());
    expect(await tick(0)).toBe(false);
    const seen = (await control("state")).scales.filter((x) => x.name === "zero").map((x) => x.replicas);
    expect(seen).toEqual(history);
    expect((await control("state")).refused).toBe(0);
  });

  it("POST /v1/load takes a gateway's load for the edge decider (204), and names a bad body (400)", async () => {
    const post = (body: unknown) =>
      exports.default.fetch("http://activator/v1/load", { method: "POST", body: JSON.stringify(body) });
    const before = (await stubFor("loaded").scaleHistory()).length;
    const ok = await post({
      loads: [{ namespace: "default", name: "loaded", requestMs: 8000, requestCount: 40 }],
    });
    expect(ok.status).toBe(204);
    // The report landed in the revision's decider: its next tick sees 4 concurrent requests and scales up.
    const stub = stubFor("loaded");
    await stub.advanceDeciderClock(2000);
    expect(await stub.decide()).toBeGreaterThan(0);
    expect((await stub.scaleHistory()).length).toBe(before + 1);
    const bad = await post({ load: [] });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/loads/);
  });

  it("requests a gateway holds (its POST /v1/stats) are load for the edge decider: 10 held at CC 2 ask for 8 in one tick", async () => {
    const stub = stubFor("held");
    const before = (await control("state")).pokes;
    // The gateway's one activation call stands for its first held request: the Durable Object counts it
    // while it waits (the revision's endpoint never answers, so it waits out its timeout).
    const activation = exports.default.fetch("http://activator/v1/activate", {
      method: "POST",
      body: JSON.stringify({ namespace: "default", name: "held", timeoutMs: 4000 }),
    });
    for (let i = 0; i < 100 && (await control("state")).pokes === before; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // The other nine, as the gateway's HeldDemand reports them: one stat a second, here two seconds' worth.
    const nine = {
      namespace: "default",
      name: "held",
      stat: { ...emptyStat("thaw-edge-gateway"), averageConcurrentRequests: 9, requestCount: 9 },
    };
    for (let i = 0; i < 2; i++) {
      const res = await exports.default.fetch("http://activator/v1/stats", {
        method: "POST",
        headers: { "content-type": "application/protobuf" },
        body: encodeWireStatMessages([nine]),
      });
      expect(res.status).toBe(204);
    }
    await stub.advanceDeciderClock(2000);
    // Knative's arithmetic: ceil(10 / (2 x 0.7)) = 8; 7 when the tick's period ran a little past the two
    // seconds reported (real time elapsed on top of the advanced clock). The activation alone asks for 1.
    const desired = await stub.decide();
    expect(desired).toBeGreaterThanOrEqual(7);
    expect(desired).toBeLessThanOrEqual(8);
    // The Durable Object's own alarm may have run a tick on the moved clock just before decide() did, so
    // the platform was told 7 or 8, whichever tick came last.
    const told = (await control("state")).scales.filter((x) => x.name === "held").map((x) => x.replicas);
    expect(told.at(-1)).toBeGreaterThanOrEqual(7);
    expect(told.at(-1)).toBeLessThanOrEqual(8);
    expect((await activation).status).toBe(504);
  });

  it("a bare app as endpoint: ready through its readinessPath, or a timeout that names the fix", async () => {
    const activate = (name: string, timeoutMs: number) =>
      exports.default.fetch("http://activator/v1/activate", {
        method: "POST",
        body: JSON.stringify({ namespace: "default", name, timeoutMs }),
      });
    const ok = await activate("bare-ok", 10_000);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { endpoints: string[] }).endpoints).toEqual([
      `127.0.0.1:${inject("barePort")}`,
    ]);
    const refused = await activate("bare", 1500);
    expect(refused.status).toBe(504);
    const msg = ((await refused.json()) as { error: { message: string } }).error.message;
    expect(msg).toMatch(/not as a queue-proxy/);
    expect(msg).toMatch(/readinessPath/);
  });

  it("GET /v1/status reports each revision's counters from its Durable Object", async () => {
    const r = await exports.default.fetch("http://activator/v1/status");
    expect(r.status).toBe(200);
    const body = (await r.json()) as { revisions: { name: string; queued: number; coldStarts: number }[] };
    const cold = body.revisions.find((x) => x.name === "cold");
    expect(cold?.coldStarts).toBe(1);
    expect(cold?.queued).toBeGreaterThanOrEqual(1);
    expect(body.revisions.map((x) => x.name).sort()).toEqual([
      "bare",
      "bare-ok",
      "cap",
      "cold",
      "decide",
      "held",
      "loaded",
      "probe",
      "zero",
    ]);
  });

  it("a websocket upgrade passes through the Worker to the pod", async () => {
    await control("start");
    const r = await exports.default.fetch("http://activator/ws", {
      headers: {
        upgrade: "websocket",
        "knative-serving-namespace": "default",
        "knative-serving-revision": "cold",
      },
    });
    expect(r.status).toBe(101);
    const ws = r.webSocket;
    if (!ws) throw new Error("no webSocket on the 101 answer");
    ws.accept();
    const got: string[] = [];
    const two = new Promise<void>((resolve) =>
      ws.addEventListener("message", (e) => {
        got.push(String(e.data));
        if (got.length === 2) resolve();
      }),
    );
    ws.send("ping");
    await two;
    expect(got).toEqual(["hello activator", "ping"]);
    ws.close(1000);
  });

  it("the probe contract holds at the edge too", async () => {
    const r = await exports.default.fetch("http://activator/", {
      headers: { "k-network-probe": "activator" },
    });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("activator");
  });
});
