/**
 * `thaw up` as a real child process, its pods real processes: SIGTERM, SIGKILL and an app that dies.
 * Pods carry a per-test marker in their environment; /proc tells which of them are still alive.
 */
import { afterEach, describe, expect, it } from "vitest";
import { echoService, type Reply, request, untilAnswered } from "./support/stack-harness.js";
import {
  appPids,
  markedPids,
  podPids,
  startUp,
  stateOf,
  type UpRun,
  until,
  untilEnded,
  untilReadyPods,
} from "./support/up-process.js";

const host = { host: "echo.localhost" };
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** Starts `thaw up` on the echo app with `scale` pods kept running (min = max). */
async function up(scale: number): Promise<UpRun> {
  const run = await startUp("thaw-life", [
    "listen: 127.0.0.1:0",
    "services:",
    ...echoService([
      "    timeoutSeconds: 30",
      `    autoscaling: { min-scale: ${scale}, max-scale: ${scale} }`,
    ]),
  ]);
  cleanup.push(run.dispose);
  const { up: u, marker } = run;
  // Each pod is two processes (app and queue-proxy).
  await until(() => podPids(marker).length === 2 * scale, 30_000, `${scale} pod(s) started`);
  await untilAnswered(u.url, host, "a pod to answer");
  // The activator's own probe may find a pod ready (and serve it) before the pod's probe counts it ready:
  // the tests below kill pods that were ready, so they wait until thaw up says so too.
  await untilReadyPods(u.url, scale, 30_000);
  return run;
}

describe("thaw up lifecycle (real processes)", () => {
  it("SIGTERM with one idle pod exits in under 2 s, after finishing the request in flight", async () => {
    const { up: u, marker } = await up(1);
    const slow = request(u.url, { path: "/slow?sleep=600", headers: host });
    await new Promise((r) => setTimeout(r, 100));
    const t0 = Date.now();
    u.proc.kill("SIGTERM");
    const reply = await slow;
    const code = await u.exited();
    const took = Date.now() - t0;
    expect(reply.status).toBe(200);
    expect(code).toBe(0);
    expect(markedPids(marker)).toEqual([]);
    // 600 ms of them are the request in flight.
    expect(took).toBeLessThan(2000 + 600);
  });

  it("SIGTERM with nothing in flight exits in under 2 s", async () => {
    const { up: u, marker } = await up(1);
    const t0 = Date.now();
    u.proc.kill("SIGTERM");
    expect(await u.exited()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(markedPids(marker)).toEqual([]);
  });

  it("SIGKILL of thaw up leaves no process of its pods alive (apps and queue-proxies)", async () => {
    const { up: u, marker } = await up(2);
    const pods = podPids(marker);
    expect(pods).toHaveLength(4);
    u.proc.kill("SIGKILL");
    await u.exited();
    // Gone, or a zombie waiting for its new parent to reap it: either way no longer running.
    await untilEnded(marker, pods, 10_000, "every pod process to be gone");
  });

  it("an app killed with SIGKILL: requests after it, GET and POST, are answered by the other pod", async () => {
    const { up: u, marker } = await up(2);
    const [victim] = appPids(marker);
    expect(victim).toBeDefined();
    process.kill(victim as number, "SIGKILL");
    // kill() only sends the signal, and a dead app is not yet a death thaw up knows of: until thaw up reaps
    // it (state Z), the gateway still routes to its pod, and on a loaded machine the kernel may deliver
    // the app's FIN on the queue-proxy's idle keep-alive connection after a new request was written there:
    // that request raced the death, so a POST on it is a clean 502 by the replay rules (faults.test.ts).
    // This test is about the requests after the death: wait until thaw up has reaped the app, which takes
    // its pod out of routing in the same tick.
    await until(() => stateOf(victim as number) === "gone", 10_000, "thaw up to reap the killed app");
    const replies: Reply[] = [];
    for (let round = 0; round < 5; round++) {
      replies.push(
        ...(await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            request(u.url, {
              method: i % 2 ? "POST" : "GET",
              headers: host,
              ...(i % 2 ? { body: `b${i}` } : {}),
            }),
          ),
        )),
      );
    }
    expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
  });

  it("the only pod's app refuses connections for a while (process alive): requests are held, none fails", async () => {
    const { up: u } = await up(1);
    expect((await request(u.url, { path: "/close-listener?reopen=800", headers: host })).status).toBe(200);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request(u.url, { method: i % 2 ? "POST" : "GET", headers: host, ...(i % 2 ? { body: "x" } : {}) }),
      ),
    );
    expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
  });

  it("the only pod's app killed: requests are held until its replacement is ready", async () => {
    const { up: u, marker } = await up(1);
    const [victim] = appPids(marker);
    process.kill(victim as number, "SIGKILL");
    // As above: the requests come after thaw up has reaped the app (one racing the death is faults.test.ts's
    // subject).
    await until(() => stateOf(victim as number) === "gone", 10_000, "thaw up to reap the killed app");
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        request(u.url, { method: i % 2 ? "POST" : "GET", headers: host, ...(i % 2 ? { body: "x" } : {}) }),
      ),
    );
    expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
    const pods = new Set(replies.map((r) => JSON.parse(r.body).pod));
    expect(pods.size).toBe(1);
  });
});
