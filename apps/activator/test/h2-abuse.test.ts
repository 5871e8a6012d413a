import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { countApp, h2Request, idleSession, prefaceOnly, rapidResetScenario } from "@thaw/bench-kit/h2-abuse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The real `thaw-activator` bin with --headers-timeout-ms 3000 (so its idle limit, 65 s by default, is 3 s)
// in front of a pod that counts what reaches it. Rapid reset (CVE-2023-44487): streams the client reset with
// their HEADERS never reach the pod, and a reset flood gets GOAWAY ENHANCE_YOUR_CALM while another client is
// served. An h2c session without streams (preface only, or idle after one) is closed at the idle limit.
const IDLE_MS = 3000;
const bin = fileURLToPath(new URL("../bin/thaw-activator.mjs", import.meta.url));
let child: ChildProcess;
let app: Awaited<ReturnType<typeof countApp>>;
let port = 0;
const revision = { "knative-serving-namespace": "default", "knative-serving-revision": "hello" };

beforeAll(async () => {
  app = await countApp();
  child = spawn(
    process.execPath,
    [bin, "--host", "127.0.0.1", "--port", "0", "--headers-timeout-ms", String(IDLE_MS)],
    {
      env: {
        ...process.env,
        THAW_REVISIONS: JSON.stringify([
          { namespace: "default", name: "hello", endpoints: [`127.0.0.1:${app.port}`] },
        ]),
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
  await app?.close();
});

describe("activator: HTTP/2 rapid reset and idle sessions (the real bin)", () => {
  it("forwards no reset stream and answers a reset flood with GOAWAY ENHANCE_YOUR_CALM", async () => {
    const r = await rapidResetScenario(port, {
      label: "activator",
      authority: "hello.default",
      headers: revision,
      reached: () => app.count(),
    });
    expect(r.problems).toEqual([]);
  }, 90_000);

  it("closes preface-only and idle sessions at the idle limit", async () => {
    const headers = { ":method": "GET", ":authority": "hello.default", ...revision };
    const [preface, fresh, idle] = await Promise.all([
      prefaceOnly(port, { maxMs: IDLE_MS * 4 }),
      idleSession(port, { maxMs: IDLE_MS * 4 }),
      idleSession(port, { headers: { ...headers, ":path": "/one" }, maxMs: IDLE_MS * 4 }),
    ]);
    process.stderr.write(
      `THAW-FIGURES ${JSON.stringify({ test: "activator h2 idle", limitMs: IDLE_MS, prefaceOnlyClosedMs: preface, noStreamClosedMs: fresh, idleAfterStreamClosedMs: idle })}\n`,
    );
    for (const ms of [preface, fresh, idle]) {
      expect(ms).not.toBeNull();
      expect(ms as number).toBeGreaterThanOrEqual(IDLE_MS - 100);
      expect(ms as number).toBeLessThan(IDLE_MS + 6000);
    }
    expect((await h2Request(port, { ...headers, ":path": "/still" })).status).toBe(200);
  }, 60_000);
});
