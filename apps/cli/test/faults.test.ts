/**
 * Process faults under `thaw up` (a real child process; its pods real app + queue-proxy processes): an app
 * SIGKILLed while requests are at it, a pod that never becomes ready, and readiness that flaps. Pods carry
 * a per-test marker in their environment, so /proc tells which of them are alive.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { echoService, type Reply, request, untilAnswered } from "./support/stack-harness.js";
import { appPids, envOf, podPids, startUp, type UpRun, until } from "./support/up-process.js";

const host = { host: "echo.localhost" };
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

/** Starts `thaw up` on the echo app with the given service lines and app environment. */
async function up(service: string[], env: Record<string, string> = {}): Promise<UpRun> {
  const run = await startUp("thaw-faults", [
    "listen: 127.0.0.1:0",
    "services:",
    ...echoService(
      service.map((l) => `    ${l}`),
      env,
    ),
  ]);
  cleanup.push(run.dispose);
  return run;
}

/** A request that never throws: a transport error (reset, refused) comes back as status 0. */
function send(url: string, opts: Parameters<typeof request>[1]): Promise<Reply> {
  return request(url, opts).catch((err: Error) => ({ status: 0, headers: {}, body: err.message }));
}

/** Lines of the echo app's arrival file: `<pod> <method> <url>`. */
function arrivals(file: string): { pod: string; method: string; url: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => {
      const [pod = "", method = "", url = ""] = l.split(" ");
      return { pod, method, url };
    });
}

describe("thaw up process faults (real processes)", () => {
  it("an app SIGKILLed with requests at it: each gets a replay or a clean 502 per the replay rules, none hangs; later ones all 200", async () => {
    const {
      up: u,
      marker,
      dir,
    } = await up(["timeoutSeconds: 30", "autoscaling: { min-scale: 2, max-scale: 2 }"]);
    await until(() => appPids(marker).length === 2, 30_000, "2 apps started");
    await untilAnswered(u.url, host, "a pod to answer");
    const file = join(dir, "arrived.log");
    // GET, POST, and POST with an Idempotency-Key, each long enough to be at an app when it dies.
    const kinds = ["GET", "POST", "POST+key"] as const;
    const inFlight = Array.from({ length: 9 }, (_, i) => {
      const kind = kinds[i % 3] as (typeof kinds)[number];
      return {
        kind,
        id: i,
        reply: send(u.url, {
          path: `/slow?sleep=4000&id=${i}&arrived=${encodeURIComponent(file)}`,
          method: kind === "GET" ? "GET" : "POST",
          headers: { ...host, ...(kind === "POST+key" ? { "idempotency-key": `k${i}` } : {}) },
          ...(kind === "GET" ? {} : { body: `body${i}` }),
        }),
      };
    });
    await until(() => arrivals(file).length >= 9, 20_000, "all 9 requests to reach an app");
    const seen = arrivals(file);
    const pods = [...new Set(seen.map((a) => a.pod))];
    // The victim is the pod holding the most of them.
    const victim = pods.sort(
      (a, b) => seen.filter((s) => s.pod === b).length - seen.filter((s) => s.pod === a).length,
    )[0] as string;
    const victimPid = appPids(marker).find(
      (pid) => (envOf(pid, "SERVING_POD") || envOf(pid, "HOSTNAME")) === victim,
    );
    expect(victimPid, `the app process of ${victim}`).toBeDefined();
    process.kill(victimPid as number, "SIGKILL");
    const t0 = Date.now();
    const outcomes = await Promise.all(inFlight.map(async (r) => ({ ...r, answer: await r.reply })));
    const tookMs = Date.now() - t0;
    const atVictim = new Set(seen.filter((s) => s.pod === victim).map((s) => /id=(\d+)/.exec(s.url)?.[1]));
    const lines = outcomes.map((o) => {
      const pod = o.answer.status === 200 ? (JSON.parse(o.answer.body) as { pod: string }).pod : "-";
      return `${o.kind} ${atVictim.has(String(o.id)) ? "victim" : "other"} ${o.answer.status} ${pod === victim ? "victim" : pod === "-" ? "-" : "other"}`;
    });
    process.stderr.write(`app killed mid-request (answered in ${tookMs} ms):\n  ${lines.join("\n  ")}\n`);
    for (const o of outcomes) {
      const s = o.answer.status;
      if (!atVictim.has(String(o.id))) {
        expect(s, `${o.kind} on the surviving pod`).toBe(200);
        continue;
      }
      // At the dead app: an idempotent request may be replayed on the other pod, a POST without a key
      // must not be (the app may have acted on it): a clean 502, never a reset or a hang.
      if (o.kind === "POST") expect(s, "a POST without a key at the dead app").toBe(502);
      else expect([200, 502], `${o.kind} at the dead app`).toContain(s);
      if (s === 200) expect((JSON.parse(o.answer.body) as { pod: string }).pod).not.toBe(victim);
    }
    expect(atVictim.size).toBeGreaterThan(0);

    // After the kill, whatever the method: another pod, or held until the replacement is ready.
    const after = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        send(u.url, { method: i % 2 ? "POST" : "GET", headers: host, ...(i % 2 ? { body: `a${i}` } : {}) }),
      ),
    );
    expect(after.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
  }, 90_000);

  it("a pod that never becomes ready: 503 + Retry-After at the request deadline, then its processes are reaped", async () => {
    const { up: u, marker } = await up(
      ["timeoutSeconds: 3", "autoscaling: { progress-deadline: 3s, window: 6s }"],
      { STARTUP_DELAY_MS: "100000000" },
    );
    const t0 = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        send(u.url, { method: i % 2 ? "POST" : "GET", headers: host, ...(i % 2 ? { body: "x" } : {}) }),
      ),
    );
    const tookMs = Date.now() - t0;
    const started = podPids(marker);
    process.stderr.write(
      `never ready: ${replies.map((r) => `${r.status} retry-after=${r.headers["retry-after"]}`).join(", ")} in ${tookMs} ms; pod pids ${started.join(",")}\n`,
    );
    for (const r of replies) {
      expect(r.status, r.body).toBe(503);
      expect(Number(r.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    }
    // At the deadline (3 s), not before; well before a hang.
    expect(tookMs).toBeGreaterThanOrEqual(2900);
    expect(tookMs).toBeLessThan(20_000);
    // The pod was started (app + queue-proxy) and is given up on after the progress deadline (3 s) plus
    // Knative's activation buffer (30 s), once the 6 s window no longer holds the requests: every
    // process of it is gone, and nothing restarts it.
    expect(started.length).toBe(2);
    const reapedMs = await until(
      () => podPids(marker).length === 0,
      60_000,
      "the pod's processes to be reaped",
    );
    process.stderr.write(`never ready: pod reaped ${reapedMs} ms after the answers\n`);
    await new Promise((r) => setTimeout(r, 1500));
    expect(podPids(marker), "no pod started again without a request").toEqual([]);
  }, 100_000);

  it("readiness that flaps: every request, GET and POST, is answered 200 (held while no pod is ready), none hangs", async () => {
    const { up: u, marker } = await up(
      ["timeoutSeconds: 30", "autoscaling: { min-scale: 2, max-scale: 2 }"],
      { READY_FLAP_MS: "700" },
    );
    // Each app's readiness alternates every 700 ms; the two pods start at different moments.
    await until(() => appPids(marker).length === 2, 30_000, "2 apps started");
    await untilAnswered(u.url, host, "a pod to answer");
    const replies: Reply[] = [];
    const t0 = Date.now();
    // About 6 s of traffic in waves, across several ready / not-ready periods of both pods.
    for (let wave = 0; wave < 30 && Date.now() - t0 < 6000; wave++) {
      replies.push(
        ...(await Promise.all(
          Array.from({ length: 4 }, (_, i) =>
            send(u.url, {
              path: `/w${wave}/${i}`,
              method: i % 2 ? "POST" : "GET",
              headers: host,
              ...(i % 2 ? { body: `b${wave}.${i}` } : {}),
            }),
          ),
        )),
      );
      await new Promise((r) => setTimeout(r, 150));
    }
    const pods = new Set(replies.filter((r) => r.status === 200).map((r) => JSON.parse(r.body).pod));
    process.stderr.write(
      `flapping readiness: ${replies.length} sent in ${Date.now() - t0} ms, ${replies.filter((r) => r.status === 200).length} × 200, served by ${pods.size} pods\n`,
    );
    expect(replies.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body}`)).toEqual([]);
    // Both pods keep coming back into rotation.
    expect(pods.size).toBe(2);
  }, 90_000);
});
