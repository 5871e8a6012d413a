import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveGroupCount } from "../src/scalers/local/child.js";
import { defaultQueueProxyCommand, LocalScaler } from "../src/scalers/local/local-scaler.js";
import type { PodInfo } from "../src/scalers/scaler.js";
import { alive, until } from "./processes.js";

const hello = join(dirname(fileURLToPath(import.meta.url)), "../../../examples/hello/server.mjs");
const rev = { namespace: "default", name: "hello" };

/** One request on its own connection: a kept-alive socket would hold a draining queue-proxy open. */
function get(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", body }),
        );
      })
      .on("error", reject);
  });
}

describe("LocalScaler (real thaw-queue-proxy and app processes)", () => {
  const scaler = new LocalScaler();
  afterAll(() => scaler.close(), 30_000);
  scaler.register({
    ...rev,
    command: [process.execPath, hello],
    env: { STARTUP_DELAY_MS: "100" },
    portEnv: "PORT",
    containerConcurrency: 2,
    timeoutSeconds: 10,
    readinessProbe: { httpGet: { path: "/healthz" } },
    drainQuietPeriodMs: 200,
  });

  it("starts pods that become ready through the queue probe and serve through their queue-proxy", async () => {
    const updates: PodInfo[][] = [];
    scaler.subscribe(rev, (p) => updates.push(p));
    await scaler.scale(rev, 2);
    const pods = await until(() => {
      const p = scaler.pods(rev);
      return p.length === 2 && p.every((x) => x.ready) ? p : undefined;
    }, 20_000);
    const names = new Set<string>();
    for (const p of pods) {
      const res = await get(`http://${p.address}/`);
      expect(res.status).toBe(200);
      names.add(/hello from (\S+)/.exec(res.body)?.[1] ?? "");
      const stat = await get(p.metricsUrl as string);
      expect(stat.type).toBe("application/protobuf");
    }
    expect([...names].sort()).toEqual(pods.map((p) => p.name).sort());
    expect(updates.at(-1)?.filter((p) => p.ready)).toHaveLength(2);
  });

  it("scales down with SIGTERM and a drain, and close() leaves no process behind", async () => {
    const pids = scaler.pids();
    expect(pids.length).toBe(4);
    await scaler.scale(rev, 1);
    await until(() => (scaler.pods(rev).length === 1 ? true : undefined), 5000);
    await until(() => (pids.filter(alive).length === 2 ? true : undefined), 15_000);
    await scaler.close();
    expect(pids.filter(alive)).toEqual([]);
    expect(liveGroupCount()).toBe(0);
  });
});

describe("LocalScaler learns nothing from the queue-proxy's output", () => {
  // A wrapper that sends the queue-proxy's stderr (its `listening` line included) nowhere: ports, readiness
  // and stats must come from the ports the scaler chose, the queue probe and the Stat endpoint.
  const silent = ["/bin/sh", "-c", 'exec "$@" 2>/dev/null', "sh", ...defaultQueueProxyCommand()];
  const lines: string[] = [];
  // Made when this block starts: a scaler starts its spare launcher at register, which the previous block's
  // count of live process groups (every scaler's) would otherwise see.
  let scaler: LocalScaler;
  beforeAll(() => {
    scaler = new LocalScaler({
      queueProxyCommand: silent,
      onPodOutput: (_r, _p, container, line) => {
        if (container === "queue-proxy") lines.push(line);
      },
    });
    scaler.register({
      ...rev,
      command: [process.execPath, hello],
      env: { STARTUP_DELAY_MS: "100" },
      portEnv: "PORT",
      containerConcurrency: 0,
      timeoutSeconds: 10,
      drainQuietPeriodMs: 200,
    });
  });
  afterAll(() => scaler.close(), 30_000);

  it("a pod whose queue-proxy writes no stderr still becomes ready, serves, and has a Stat", async () => {
    await scaler.scale(rev, 1);
    const [pod] = await until(() => {
      const p = scaler.pods(rev);
      return p.length === 1 && p[0]?.ready ? p : undefined;
    }, 20_000);
    expect((await get(`http://${pod?.address}/`)).status).toBe(200);
    expect((await get(pod?.metricsUrl as string)).type).toBe("application/protobuf");
    expect(lines.filter((l) => l.includes("listening"))).toEqual([]);
  });
});

describe("LocalScaler numbered replicas and a readiness gate (a container's health check)", () => {
  let scaler: LocalScaler;
  let gateOpen = false;
  const asked: number[] = [];
  beforeAll(() => {
    scaler = new LocalScaler();
    scaler.register({
      ...rev,
      command: [process.execPath, hello],
      env: {},
      portEnv: "PORT",
      containerConcurrency: 0,
      timeoutSeconds: 10,
      drainQuietPeriodMs: 100,
      replicas: { env: "THAW_TEST_REPLICA", userPort: () => undefined },
      readinessGate: async (n) => {
        asked.push(n);
        return gateOpen;
      },
    });
  });
  afterAll(() => scaler.close(), 30_000);

  it("pods are numbered 1, 2; held (address for the scaler only) and not ready until the gate passes", async () => {
    await scaler.scale(rev, 2);
    // The queue probe passes (the app listens), so the gate is asked, for both numbers. Both pods must be
    // listed too: at load 14 in CI the list once held one when both numbers had been asked (cause not found).
    await until(
      () => (new Set(asked).size === 2 && scaler.pods(rev).length === 2 ? true : undefined),
      20_000,
    );
    expect([...new Set(asked)].sort()).toEqual([1, 2]);
    const pods = scaler.pods(rev);
    expect(pods.map((p) => [p.ready, p.held])).toEqual([
      [false, true],
      [false, true],
    ]);
    gateOpen = true;
    await until(() => (scaler.pods(rev).every((p) => p.ready && !p.held) ? true : undefined), 10_000);
  });
});

describe("LocalScaler: one pod of several ends before it is ready", () => {
  // The first queue-proxy started ends at once (exit 7, after a line); every later one runs. The app starts
  // in 1.5 s, so when the first pod ends its siblings are still starting.
  const dir = mkdtempSync(join(tmpdir(), "thaw-qp-once-"));
  const marker = join(dir, "ended");
  const once = [
    "/bin/sh",
    "-c",
    'if mkdir "$0" 2>/dev/null; then echo "qp boom"; exit 7; fi; exec "$@"',
    marker,
    ...defaultQueueProxyCommand(),
  ];
  const problems: (string | undefined)[] = [];
  let scaler: LocalScaler;
  beforeAll(() => {
    scaler = new LocalScaler({
      queueProxyCommand: once,
      restartDelayMs: 200,
      onProblem: (_r, p) => problems.push(p === undefined ? undefined : `${p.severity}: ${p.message}`),
    });
    scaler.register({
      ...rev,
      command: [process.execPath, hello],
      env: { STARTUP_DELAY_MS: "1500" },
      portEnv: "PORT",
      containerConcurrency: 0,
      timeoutSeconds: 10,
      drainQuietPeriodMs: 200,
    });
  });
  afterAll(async () => {
    await scaler.close();
    rmSync(dir, { recursive: true, force: true });
  }, 30_000);

  it("does not call the revision failing while its siblings start, and names the queue-proxy, not the app", async () => {
    await scaler.scale(rev, 3);
    await until(() => (scaler.pods(rev).filter((p) => p.ready).length === 3 ? true : undefined), 20_000);
    // The ended pod was replaced; nothing ever said the revision was failing (held requests would have been
    // answered 503 at once although three pods were on their way).
    expect(problems.filter((p) => p?.startsWith("failing"))).toEqual([]);
  });

  it("when the only pod's queue-proxy ends, the report names it and its last line", async () => {
    await scaler.scale(rev, 0);
    await until(() => (scaler.pods(rev).length === 0 ? true : undefined), 15_000);
    rmSync(marker, { recursive: true, force: true });
    problems.length = 0;
    await scaler.scale(rev, 1);
    const failing = await until(() => problems.find((p) => p?.startsWith("failing")), 15_000);
    expect(failing).toMatch(
      /^failing: queue-proxy exited with code 7 before the pod was ready; last output: qp boom/,
    );
    expect(failing).not.toMatch(/app exited/);
  });
});
