import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { startActivatorBin } from "./activator-bin.js";
import { freePort } from "./backends.js";

// Issue 26: the bodies of held requests were kept whole for a replay, each up to bodyBufferBytes (1 MiB), so
// 300 held POSTs of 1 MiB took an activator to 560 MB. All of them together now stay within a budget per
// revision (16 MiB) and per process (64 MiB); the rest stream once, unbuffered, and are still served.
// The real `thaw-activator` bin (activator-bin.ts); its revision's only pod starts listening after the 300 are held.
const HELD = 300;
const BODY = Buffer.alloc(1024 * 1024, 120);
/**
 * The revision's budget (the default), plus what a held request costs whatever its body: its socket's read
 * and the stream layers' one chunk each (64 KiB at most apiece), and its share of the heap; 512 KiB.
 * Before the budget: 300 MiB of bodies alone.
 */
const MAX_GROWTH_MIB = 16 + HELD / 2;
const REV = { "knative-serving-namespace": "default", "knative-serving-revision": "held" };

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** Resident set size of a process now and at its peak, MiB (/proc: VmRSS, VmHWM). */
function rssMiB(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "latin1");
  const kib = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { now: Math.round(kib("VmRSS") / 1024), peak: Math.round(kib("VmHWM") / 1024) };
}

async function startActivator(podPort: number): Promise<{ proc: ChildProcess; port: number }> {
  const { child: proc, port } = await startActivatorBin([], [`127.0.0.1:${podPort}`], {
    namespace: "default",
    name: "held",
    timeoutSeconds: 120,
  });
  cleanup.push(() => {
    if (proc.exitCode === null) proc.kill("SIGKILL");
  });
  return { proc, port };
}

/** A pod on `port`: answers the queue probe, and every request with the size of the body it read. */
async function startPod(port: number): Promise<void> {
  const server = http.createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") return void res.end("queue");
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
    });
    req.on("end", () => res.end(String(size)));
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
}

/** A POST of `BODY` to the held revision on its own connection: its status and answer. */
function post(port: number, i: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: `/held${i}`,
        agent: false,
        headers: { ...REV, "content-length": String(BODY.length) },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(BODY);
  });
}

/** The activator's queued-request count (`/v1/status`). */
async function queued(port: number): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/v1/status`);
  return ((await r.json()) as { queued: number }).queued;
}

describe("held request bodies are bounded in total (the real bin)", () => {
  it("300 held POSTs of 1 MiB stay within the revision's budget, and every one is served whole after the wake", async () => {
    const podPort = await freePort();
    const { proc, port } = await startActivator(podPort);
    const pid = proc.pid as number;
    const before = rssMiB(pid);
    const answers = Array.from({ length: HELD }, (_, i) => post(port, i));
    for (const a of answers) a.catch(() => {});
    // Every request held (counted as queued: its body was kept or left streaming), bounded at 60 s.
    const t0 = Date.now();
    while ((await queued(port)) < HELD) {
      if (Date.now() - t0 > 60_000) throw new Error(`only ${await queued(port)} of ${HELD} held after 60 s`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const held = rssMiB(pid);
    await startPod(podPort);
    const served = await Promise.all(answers);
    const after = rssMiB(pid);
    const figures = {
      test: "held-bodies/activator",
      sent: HELD,
      bodyBytes: BODY.length,
      answered: served.filter((s) => s.status === 200).length,
      whole: served.filter((s) => s.body === String(BODY.length)).length,
      rssMiB: [before.now, held.peak, after.now],
    };
    process.stderr.write(`THAW-FIGURES ${JSON.stringify(figures)}\n`);
    expect(served.map((s) => s.status)).toEqual(Array(HELD).fill(200));
    expect(figures.whole).toBe(HELD);
    expect(held.peak - before.now).toBeLessThan(MAX_GROWTH_MIB);
  }, 120_000);
});
