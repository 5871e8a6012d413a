import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appService, helloApp, request } from "./support/stack-harness.js";
import { startUp, type UpRun, until } from "./support/up-process.js";

/**
 * Warm before need (issue 28.4) on a real `thaw up` (child process, real pods): a schedule window that is
 * open now brings its min-scale up with no request at all, and a wake hint on `POST /v1/activate` keeps a
 * revision at one pod for its TTL, without counting as load, then lets it go to zero.
 */
const TOKEN = "warm-test-token-0123456789";
const STABLE_S = 6;
const GRACE_S = 1;
const TTL_S = 3;

interface Status {
  name: string;
  readyPods: number;
  desiredScale: number;
  stableConcurrency: number;
  warm: { window: { name: string; minScale: number } | null; hintUntilMs: number | null; minScale: number };
}

async function statusOf(base: string, name: string): Promise<Status> {
  const res = await fetch(`${base}/_thaw/api/revisions`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const all = (await res.json()) as Status[];
  return all.find((s) => s.name === name) as Status;
}

/** A window that opened at the current UTC minute and stays open for an hour. */
function openNow(): string {
  const now = new Date();
  return `${now.getUTCMinutes()} ${now.getUTCHours()} * * *`;
}

describe("warm before need under thaw up", () => {
  let run: UpRun;
  let base = "";

  beforeAll(async () => {
    run = await startUp("thaw-warm", [
      "listen: 127.0.0.1:0",
      `token: ${TOKEN}`,
      "autoscaler:",
      `  stable-window: ${STABLE_S}s`,
      `  scale-to-zero-grace-period: ${GRACE_S}s`,
      "warm:",
      `  - { path: /login, services: [hinted], ttlSeconds: ${TTL_S} }`,
      "services:",
      ...appService("sched", helloApp, [
        "    schedules:",
        `      - { name: now, timezone: UTC, start: "${openNow()}", duration: 1h, minScale: 2 }`,
      ]),
      ...appService("hinted", helloApp),
    ]);
    base = run.up.url;
  });
  afterAll(async () => {
    await run?.dispose();
  });

  it("a window open now scales its service to the window's min-scale with no traffic", async () => {
    await until(
      async () => (await statusOf(base, "sched")).readyPods >= 2,
      30_000,
      "2 ready pods from the window",
    );
    const s = await statusOf(base, "sched");
    expect(s.warm.window).toMatchObject({ name: "now", minScale: 2 });
    expect(s.warm.minScale).toBe(2);
    expect(s.stableConcurrency).toBe(0);
    // The other service, without a window, stays at zero.
    expect((await statusOf(base, "hinted")).readyPods).toBe(0);
  });

  it("refuses a wake hint without the token, and one whose TTL is out of range", async () => {
    const body = JSON.stringify({ namespace: "default", name: "hinted", ttlSeconds: TTL_S });
    const anon = await fetch(`${base}/v1/activate`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
    });
    expect(anon.status).toBe(401);
    const bad = await fetch(`${base}/v1/activate`, {
      method: "POST",
      body: JSON.stringify({ namespace: "default", name: "hinted", ttlSeconds: 99_999 }),
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/ttlSeconds must be a whole number of seconds from 1 to 3600/);
  });

  it("a wake hint keeps the revision at 1 pod for its TTL without counting as load, then it goes to 0", async () => {
    const res = await fetch(`${base}/v1/activate`, {
      method: "POST",
      body: JSON.stringify({ namespace: "default", name: "hinted", ttlSeconds: TTL_S }),
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    });
    expect(res.status).toBe(202);
    const { warmUntilMs } = (await res.json()) as { warmUntilMs: number };
    expect(warmUntilMs).toBeGreaterThan(Date.now());
    await until(
      async () => (await statusOf(base, "hinted")).readyPods === 1,
      30_000,
      "the hinted pod to be ready",
    );
    const s = await statusOf(base, "hinted");
    expect(s.warm.hintUntilMs).toBe(warmUntilMs);
    // Not load: the decider reads nothing, so it never asks for more than the floor.
    expect(s.stableConcurrency).toBe(0);
    // Held at 1 while the TTL runs.
    while (Date.now() < warmUntilMs - 200) {
      expect((await statusOf(base, "hinted")).desiredScale).toBe(1);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Then scaled to zero by the usual rules (stable window, grace), with no request in between.
    await until(
      async () => (await statusOf(base, "hinted")).desiredScale === 0,
      (STABLE_S + GRACE_S + 20) * 1000,
      "scale to zero after the TTL",
    );
    expect((await statusOf(base, "hinted")).warm.hintUntilMs).toBeNull();
  });

  it("a request on a warm path sends a hint through the hook: the service behind it gets a pod, the request is not held", async () => {
    expect((await statusOf(base, "hinted")).readyPods).toBe(0);
    const t0 = Date.now();
    const res = await request(base, { path: "/login", headers: { host: "sched.localhost" } });
    expect(res.status).toBe(200);
    // sched is warm (its window): the login page answered without waiting for hinted's start.
    expect(Date.now() - t0).toBeLessThan(2000);
    await until(
      async () => (await statusOf(base, "hinted")).readyPods === 1,
      30_000,
      "hinted warmed by /login",
    );
    const s = await statusOf(base, "hinted");
    expect(s.warm.hintUntilMs).not.toBeNull();
    expect(s.stableConcurrency).toBe(0);
  });
});
