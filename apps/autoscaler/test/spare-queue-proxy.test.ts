import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { defaultQueueProxyCommand, LocalScaler } from "../src/scalers/local/local-scaler.js";
import { alive, until } from "./processes.js";

const here = dirname(fileURLToPath(import.meta.url));
const hello = join(here, "../../../examples/hello/server.mjs");
const rev = { namespace: "default", name: "hello" };
const spec = {
  ...rev,
  command: [process.execPath, hello],
  env: { STARTUP_DELAY_MS: "50" },
  portEnv: "PORT",
  containerConcurrency: 0,
  timeoutSeconds: 10,
  drainQuietPeriodMs: 50,
};

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

async function readyPod(scaler: LocalScaler) {
  return until(() => {
    const p = scaler.pods(rev);
    return p.length === 1 && p[0]?.ready ? p[0] : undefined;
  }, 20_000);
}

describe("spare queue-proxy (real thaw-queue-proxy and app processes)", () => {
  const scaler = new LocalScaler({ restartDelayMs: 100, spareDelayMs: 50 });
  afterAll(() => scaler.close(), 30_000);
  scaler.register(spec);

  it("sparesWaiting() resolves once the spare queue-proxy is warm and waiting, titled thaw-spare-qp", async () => {
    await scaler.sparesWaiting();
    const spare = scaler.spare?.pid as number;
    expect(cmdline(spare)).toMatch(/^thaw-spare-qp/);
    expect(scaler.spareLauncher?.pid).toBeGreaterThan(0);
  });

  it("a cold start takes the spare started at register, and a new spare follows once the pod is ready", async () => {
    const spare = await until(() => scaler.spare?.pid, 5000);
    await scaler.scale(rev, 1);
    const pod = await readyPod(scaler);
    expect(scaler.spare?.taken).toBe(1);
    // The pod's queue-proxy is the process that was the spare.
    expect(scaler.pids()).toContain(spare);
    // Taken, it is titled after its pod; a waiting spare is titled apart from pods.
    expect(cmdline(spare)).toContain(`thaw-queue-proxy ${pod.name}`);
    const res = await get(`http://${pod.address}/`);
    expect(res.status).toBe(200);
    expect(res.body).toContain(pod.name);
    const next = await until(() => scaler.spare?.pid, 5000);
    expect(next).not.toBe(spare);
    await until(() => (cmdline(next).startsWith("thaw-spare-qp") ? true : undefined), 10_000);
    expect(scaler.pids()).not.toContain(next);
  });

  it("the next cold start execs its app in the spare launcher: same pid, the app's argv, the pod's env", async () => {
    await scaler.scale(rev, 0);
    await until(() => (scaler.pods(rev).length === 0 ? true : undefined), 15_000);
    const launcher = await until(() => scaler.spareLauncher?.pid, 5000);
    expect(cmdline(launcher)).toContain("thaw-spare-app");
    const taken = scaler.spareLauncher?.taken ?? 0;
    await scaler.scale(rev, 1);
    const pod = await readyPod(scaler);
    expect(scaler.spareLauncher?.taken).toBe(taken + 1);
    expect(scaler.pids()).toContain(launcher);
    expect(cmdline(launcher)).toBe(`${process.execPath} ${hello} `);
    const env = new Map(
      readFileSync(`/proc/${launcher}/environ`, "latin1")
        .split("\0")
        .filter(Boolean)
        .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
    );
    expect(env.get("HOSTNAME")).toBe(pod.name);
    expect(env.get("STARTUP_DELAY_MS")).toBe("50");
    expect(env.get("K_REVISION")).toBe("hello");
    expect(env.get("PATH")).toBe(process.env.PATH);
    const res = await get(`http://${pod.address}/`);
    expect(res.body).toContain(pod.name);
  });

  it("a spare killed while waiting is replaced, and the next cold start still works", async () => {
    await scaler.scale(rev, 0);
    await until(() => (scaler.pods(rev).length === 0 ? true : undefined), 15_000);
    const killed = await until(() => scaler.spare?.pid, 5000);
    process.kill(killed, "SIGKILL");
    const replaced = await until(() => {
      const p = scaler.spare?.pid;
      return p !== undefined && p !== killed ? p : undefined;
    }, 10_000);
    await scaler.scale(rev, 1);
    const pod = await readyPod(scaler);
    expect(scaler.pids()).toContain(replaced);
    expect((await get(`http://${pod.address}/`)).status).toBe(200);
  });

  it("close() stops the waiting spare too", async () => {
    const spare = await until(() => scaler.spare?.pid, 5000);
    await scaler.close();
    await until(() => (alive(spare) ? undefined : true), 5000);
    expect(scaler.spare?.pid).toBeUndefined();
  });
});

describe("spare queue-proxy fallbacks", () => {
  it("a queue-proxy command that fails in spare mode: spares are given up and pods spawn it", async () => {
    // Exits at once when started as a spare, runs the real queue-proxy otherwise.
    const noSpare = [
      "/bin/sh",
      "-c",
      'if [ "$THAW_QUEUE_PROXY_SPARE" = 1 ]; then exit 3; fi; exec "$@"',
      "sh",
      ...defaultQueueProxyCommand(),
    ];
    const scaler = new LocalScaler({ queueProxyCommand: noSpare, spareQueueProxy: true, restartDelayMs: 50 });
    try {
      scaler.register(spec);
      // Three deaths in a row, then no more spares.
      await new Promise((r) => setTimeout(r, 1500));
      expect(scaler.spare?.pid).toBeUndefined();
      await scaler.scale(rev, 1);
      const pod = await readyPod(scaler);
      expect(scaler.spare?.taken).toBe(0);
      expect((await get(`http://${pod.address}/`)).status).toBe(200);
    } finally {
      await scaler.close();
    }
  });

  it("a custom queue-proxy command gets no spare unless asked", async () => {
    const scaler = new LocalScaler({ queueProxyCommand: defaultQueueProxyCommand() });
    scaler.register(spec);
    expect(scaler.spare).toBeUndefined();
    await scaler.close();
  });

  it("a spare whose scaler is SIGKILLed exits (stdin closes), leaving no orphan", async () => {
    // A separate Node process runs the scaler and prints its spare's pid; it is then killed outright.
    const script = `
      import { LocalScaler } from ${JSON.stringify(join(here, "../dist/scalers/local/local-scaler.js"))};
      const s = new LocalScaler();
      s.register(${JSON.stringify(spec)});
      const t = setInterval(() => { if (s.spare?.pid) { console.log(s.spare.pid); clearInterval(t); } }, 10);
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    parent.stdout.on("data", (d) => (out += d));
    const pid = await until(() => (/^\d+$/m.test(out) ? Number(out.trim()) : undefined), 10_000);
    expect(alive(pid)).toBe(true);
    parent.kill("SIGKILL");
    await until(() => (alive(pid) ? undefined : true), 10_000);
  });
});
