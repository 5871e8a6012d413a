import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// thaw-autoscaler (a webhook scaler, whose target outlives it) SIGKILLed and started again on the same port
// while the real `thaw-activator` bin carries traffic to a pod and streams its stats over a websocket:
// the stat link reconnects, no request is lost, and the restarted autoscaler never asks for 0 replicas
// while the revision has traffic. The pod is a plain process answering the activator's queue probe.
const MAIN = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const ACTIVATOR = fileURLToPath(new URL("../../activator/bin/thaw-activator.mjs", import.meta.url));
const TOKEN = "restart-token-of-sixteen";

const children: ChildProcess[] = [];
let dir = "";
let pod: Server;
let receiver: Server;
const scales: { at: number; desiredScale: number }[] = [];
let autoscalerPort = 0;
let activatorPort = 0;

function listen(s: Server): Promise<number> {
  return new Promise((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));
}

async function freePort(): Promise<number> {
  const s = createServer();
  const p = await listen(s);
  await new Promise((r) => s.close(r));
  return p;
}

/** Spawns `args` and resolves once its output matches `ready`. */
async function start(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args[0]} did not start: ${out}`)), 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  return child;
}

function startAutoscaler(config: string): Promise<ChildProcess> {
  return start(
    [MAIN, "--config", config, "--listen", `127.0.0.1:${autoscalerPort}`],
    /thaw-autoscaler listening/,
    {
      THAW_SCALE_WEBHOOK_SECRET: "a-webhook-secret-for-tests",
    },
  );
}

/** The autoscaler's view of the revision (GET /v1/revisions). */
async function revision(): Promise<{ desiredScale: number; stableConcurrency: number } | undefined> {
  const res = await fetch(`http://127.0.0.1:${autoscalerPort}/v1/revisions`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  }).catch(() => undefined);
  if (!res?.ok) return undefined;
  const list = (await res.json()) as { name: string; desiredScale: number; stableConcurrency: number }[];
  return list.find((r) => r.name === "hello");
}

/** One request through the activator; a transport error counts as status 0. */
function proxied(path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: activatorPort,
        path,
        agent: false,
        headers: { "knative-serving-namespace": "default", "knative-serving-revision": "hello" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", () => resolve(0));
    req.end();
  });
}

async function until(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<number> {
  const t0 = Date.now();
  for (let i = 0; i < 100_000; i++) {
    if (await cond()) return Date.now() - t0;
    if (Date.now() - t0 > ms) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${ms} ms waiting for ${what}`);
}

let config = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "thaw-autoscaler-restart-"));
  pod = createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") return void res.writeHead(200).end("queue");
    setTimeout(() => res.writeHead(200).end("ok"), 100);
  });
  const podPort = await listen(pod);
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const j = JSON.parse(body || "{}") as { desiredScale?: number };
      if (typeof j.desiredScale === "number") scales.push({ at: Date.now(), desiredScale: j.desiredScale });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  const receiverPort = await listen(receiver);
  autoscalerPort = await freePort();
  config = join(dir, "thaw.config.yaml");
  await writeFile(
    config,
    [
      `token: ${TOKEN}`,
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 6s }",
      "services:",
      "  - name: hello",
      "    containerConcurrency: 1",
      `    webhook: { url: "http://127.0.0.1:${receiverPort}/scale", endpoints: ["127.0.0.1:${podPort}"] }`,
    ].join("\n"),
  );
  await startAutoscaler(config);
  activatorPort = await freePort();
  await start(
    [
      ACTIVATOR,
      "--host",
      "127.0.0.1",
      "--port",
      String(activatorPort),
      "--token",
      TOKEN,
      "--autoscaler",
      `ws://127.0.0.1:${autoscalerPort}`,
    ],
    /"listening"/,
    {
      THAW_REVISIONS: JSON.stringify([
        { namespace: "default", name: "hello", endpoints: [`127.0.0.1:${podPort}`], containerConcurrency: 1 },
      ]),
    },
  );
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  pod?.close();
  receiver?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("thaw-autoscaler SIGKILLed and restarted under load (real processes)", () => {
  it("the stat link reconnects, no request is lost, and it never scales a revision with traffic to 0", async () => {
    let stop = false;
    const statuses: number[] = [];
    // Two clients in a loop, each request 100 ms at the pod: the revision always has traffic.
    const load = Promise.all(
      [0, 1].map(async (c) => {
        for (let i = 0; i < 100_000 && !stop; i++) statuses.push(await proxied(`/load/${c}/${i}`));
      }),
    );
    await until(
      async () => ((await revision())?.stableConcurrency ?? 0) > 0,
      20_000,
      "stats from the activator",
    );
    await until(() => scales.some((s) => s.desiredScale > 0), 20_000, "a scale up");
    const autoscaler = children[0] as ChildProcess;
    autoscaler.kill("SIGKILL");
    await new Promise((r) => autoscaler.once("exit", r));
    const killedAt = Date.now();
    await new Promise((r) => setTimeout(r, 1000));
    await startAutoscaler(config);
    const reconnectMs = await until(
      async () => ((await revision())?.stableConcurrency ?? 0) > 0,
      20_000,
      "the activator's stats to reach the restarted autoscaler",
    );
    // Longer than a stable window and a scale-to-zero grace period after the restart.
    await new Promise((r) => setTimeout(r, 14_000));
    stop = true;
    await load;
    const after = scales.filter((s) => s.at > killedAt);
    process.stderr.write(
      `autoscaler restart: stats back ${reconnectMs} ms after the restart; ${statuses.length} requests, ` +
        `${statuses.filter((s) => s !== 200).length} not 200; scales before the kill ` +
        `${JSON.stringify(scales.filter((s) => s.at <= killedAt).map((s) => s.desiredScale))}, after ` +
        `${JSON.stringify(after.map((s) => s.desiredScale))}\n`,
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(after.filter((s) => s.desiredScale === 0)).toEqual([]);
    expect(((await revision())?.desiredScale ?? 0) > 0).toBe(true);
  }, 90_000);
});
