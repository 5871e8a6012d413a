import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { idleAfterRequest, silentSocket, slowloris } from "@thaw/bench-kit/slow-clients";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, startBackend } from "./backends.js";

// The real `thaw-activator` bin with --headers-timeout-ms 1500: a head trickled a byte at a time gets 408
// and is closed at the limit, a connection that never sends a byte and an idle keep-alive connection are
// closed too, while a normal client proxied to a pod meanwhile is served without delay.
const HEADERS_MS = 1500;
const bin = fileURLToPath(new URL("../bin/thaw-activator.mjs", import.meta.url));
let child: ChildProcess;
let backend: Backend;
let port = 0;

beforeAll(async () => {
  backend = await startBackend();
  child = spawn(
    process.execPath,
    [bin, "--host", "127.0.0.1", "--port", "0", "--headers-timeout-ms", String(HEADERS_MS)],
    {
      env: {
        ...process.env,
        THAW_REVISIONS: JSON.stringify([{ namespace: "default", name: "hello", endpoints: [backend.addr] }]),
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`activator did not start: ${out}`)), 20_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /"listening".*?"port":(\d+)/.exec(out);
      if (m) {
        port = Number(m[1]);
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
  });
}, 30_000);
afterAll(async () => {
  child?.kill("SIGKILL");
  await backend?.close();
});

/** One request through the activator to the `hello` revision, on a fresh connection. */
function proxied(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        path,
        agent: false,
        headers: { "knative-serving-namespace": "default", "knative-serving-revision": "hello" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("activator: slow and idle clients (the real bin)", () => {
  it("closes slowloris, silent and idle sockets at the head timeout and serves others meanwhile", async () => {
    const slow = Array.from({ length: 5 }, () => slowloris(port, { byteIntervalMs: 200, maxMs: 15_000 }));
    const silent = Array.from({ length: 5 }, () => silentSocket(port, { maxMs: 15_000 }));
    const idle = idleAfterRequest(port, { path: "/metrics", maxMs: 15_000 });
    const latencies: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < 5000 && performance.now() - t0 < HEADERS_MS * 2; i++) {
      const s = performance.now();
      expect(await proxied(`/normal${i}`)).toBe(200);
      latencies.push(performance.now() - s);
    }
    const slowR = await Promise.all(slow);
    const silentR = await Promise.all(silent);
    const idleR = await idle;
    const worst = Math.round(Math.max(...latencies));
    process.stderr.write(
      `activator slow clients: slowloris closed after ${slowR.map((r) => r.closedAfterMs).join("/")} ms, ` +
        `silent after ${silentR.map((r) => r.closedAfterMs).join("/")} ms, idle keep-alive after ${idleR.closedAfterMs} ms; ` +
        `${latencies.length} normal requests, worst ${worst} ms\n`,
    );
    for (const r of [...slowR, ...silentR, idleR]) {
      expect(r.closedAfterMs).not.toBeNull();
      expect(r.closedAfterMs as number).toBeGreaterThanOrEqual(HEADERS_MS - 100);
      expect(r.closedAfterMs as number).toBeLessThan(HEADERS_MS + 8000);
    }
    for (const r of slowR) expect(r.received).toMatch(/^HTTP\/1\.1 408 /);
    expect(backend.seen.filter((s) => s.url.startsWith("/normal"))).toHaveLength(latencies.length);
    expect(worst).toBeLessThan(HEADERS_MS);
  }, 60_000);
});
