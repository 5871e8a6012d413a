/**
 * Process faults under `thaw up` (a real child process; its pods real app + queue-proxy processes): an app
 * SIGKILLed while requests are at it, a pod that never becomes ready, and readiness that flaps. Pods carry
 * a per-test marker in their environment, so /proc tells which of them are alive.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { echoApp, type Reply, request } from "./support/stack-harness.js";
import { appPids, envOf, markedPids, podPids, Up, until } from "./support/up-process.js";

const host = { host: "echo.localhost" };
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** Starts `thaw up` on the echo app with the given service lines (indented under the service). */
async function up(service: string[]): Promise<{ up: Up; marker: string; dir: string }> {
  const marker = `thaw-faults-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), "thaw-faults-"));
  const config = join(dir, "thaw.config.yaml");
  writeFileSync(
    config,
    [
      "listen: 127.0.0.1:0",
      "services:",
      "  - name: echo",
      "    hosts: [echo.localhost]",
      "    readinessProbe: { httpGet: { path: /healthz } }",
      ...service.map((l) => `    ${l}`),
      "    run:",
      `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(echoApp)}]`,
    ].join("\n"),
  );
  const u = new Up(config, marker);
  cleanup.push(() => {
    if (u.proc.exitCode === null) u.proc.kill("SIGKILL");
    for (const pid of markedPids(marker)) if (pid !== u.proc.pid) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  await u.ready();
  return { up: u, marker, dir };
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
    await until(async () => (await send(u.url, { headers: host })).status === 200, 30_000, "a pod to answer");
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
});
