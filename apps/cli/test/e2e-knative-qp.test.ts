import { readFileSync } from "node:fs";
import http from "node:http";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appService, helloApp } from "./support/stack-harness.js";
import { isNoPodsProcess, markedPids, startUp, type UpRun, until } from "./support/up-process.js";

/**
 * `thaw up` with `run.queueProxy.command`: the pod's queue-proxy is `thaw-queue-proxy` started the way
 * Knative's own binary would be, with Knative's env only (no THAW_* port variables), so it binds Knative's
 * fixed admin 8022, metrics 9090 and user-metrics 9091 ports. Its stderr goes to a file through a shell
 * wrapper, so the scaler cannot learn anything from it: readiness must come over the serving port's queue
 * probe and stats over 9090's protobuf Stat, or the cold request below never gets an answer.
 */
const here = dirname(fileURLToPath(import.meta.url));
const queueProxyBin = join(here, "../../queue-proxy/bin/thaw-queue-proxy.mjs");
const FIXED_PORTS = [8022, 9090, 9091];
const GRACE_S = 2;
const STABLE_S = 6;

function get(base: string, path = "/"): Promise<{ status: number | string; body: string }> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const req = http.get(
      { host: u.hostname, port: u.port, path, headers: { host: "hello.localhost" }, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", (e) => resolve({ status: `ERR ${(e as NodeJS.ErrnoException).code}`, body: "" }));
  });
}

/** True when nothing listens on `port` (all interfaces, as the queue-proxy binds it without THAW_BIND_HOST). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, () => srv.close(() => resolve(true)));
  });
}

async function revisions(base: string): Promise<{ desiredScale: number; readyPods: number }[]> {
  const res = await fetch(`${base}/_thaw/api/revisions`);
  return (await res.json()) as { desiredScale: number; readyPods: number }[];
}

describe("thaw up with run.queueProxy.command (thaw-queue-proxy on Knative's env and fixed ports only)", () => {
  let stderrFile = "";
  let run: UpRun | undefined;

  beforeAll(async () => {
    const busy: number[] = [];
    for (const p of FIXED_PORTS) if (!(await portFree(p))) busy.push(p);
    if (busy.length > 0) {
      throw new Error(
        `Knative's fixed queue-proxy ports ${busy.join(", ")} are in use here; free them to run this`,
      );
    }
    run = await startUp("thaw-e2e-kqp", (dir) => {
      stderrFile = join(dir, "queue-proxy.stderr");
      // $0 of `sh -c` is the stderr file; "$@" is the queue-proxy's argv.
      const wrapper = ["/bin/sh", "-c", 'exec "$@" 2>"$0"', stderrFile, process.execPath, queueProxyBin];
      return [
        "listen: 127.0.0.1:0",
        "autoscaler:",
        `  stable-window: ${STABLE_S}s`,
        `  scale-to-zero-grace-period: ${GRACE_S}s`,
        "services:",
        ...appService(
          "hello",
          helloApp,
          ["    containerConcurrency: 2", "    timeoutSeconds: 20", "    autoscaling: { max-scale: 1 }"],
          { STARTUP_DELAY_MS: "300", WORK_MS: "100" },
          [`      queueProxy: { command: ${JSON.stringify(wrapper)} }`],
        ),
      ];
    });
  });

  afterAll(async () => {
    await run?.dispose();
  });

  it("answers a cold request through the queue-proxy, learning readiness over the serving port's probe", async () => {
    const u = (run as UpRun).up;
    expect((await revisions(u.url))[0]).toMatchObject({ desiredScale: 0, readyPods: 0 });
    const r = await get(u.url);
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/hello from \S+/);
    expect(u.out).toMatch(/default\/hello {2}0 -> 1 {2}request while scaled to zero/);
    // The queue-proxy did announce itself, but only into the file: the scaler never saw that line.
    const announced = readFileSync(stderrFile, "utf8");
    expect(announced).toContain('"admin":8022');
    expect(announced).toContain('"metrics":9090');
    expect(u.out).not.toContain("thaw-queue-proxy listening");
  });

  it("serves concurrent requests on its one pod, whose Stat is on Knative's 9090", async () => {
    const u = (run as UpRun).up;
    const replies = await Promise.all(Array.from({ length: 20 }, () => get(u.url)));
    expect(replies.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(new Set(replies.map((r) => /hello from (\S+)/.exec(r.body)?.[1])).size).toBe(1);
    const stat = await fetch("http://127.0.0.1:9090/metrics");
    expect(stat.status).toBe(200);
    expect(stat.headers.get("content-type")).toContain("application/protobuf");
    expect((await stat.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it("scales to zero after the load stops; the pod's processes go after Knative's 30 s drain", async () => {
    const u = (run as UpRun).up;
    await until(
      async () => (await revisions(u.url))[0]?.desiredScale === 0,
      (GRACE_S + STABLE_S + 20) * 1000,
      "scale to zero",
    );
    expect((await revisions(u.url))[0]).toMatchObject({ desiredScale: 0, readyPods: 0 });
    // No THAW_DRAIN_QUIET_PERIOD_MS in Knative's env: the queue-proxy waits its fixed 30 s quiet period.
    // The spare app launcher and the pods' reaper are thaw up's, no pod's.
    const left = () => markedPids((run as UpRun).marker).filter((pid) => !isNoPodsProcess(pid));
    await until(async () => left().length === 1, 60_000, "no pod process left");
    expect(left()).toEqual([u.proc.pid]);
    u.proc.kill("SIGTERM");
    expect(await u.exited()).toBe(0);
  });
});
