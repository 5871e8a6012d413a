import { countApp, idleSessionScenario, rapidResetScenario } from "@thaw/bench-kit/h2-abuse";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ActivatorBin, startActivatorBin } from "./activator-bin.js";

// The real `thaw-activator` bin with --headers-timeout-ms 3000 (so its idle limit, 65 s by default, is 3 s)
// in front of a pod that counts what reaches it. Rapid reset (CVE-2023-44487): streams the client reset with
// their HEADERS never reach the pod, and a reset flood gets GOAWAY ENHANCE_YOUR_CALM while another client is
// served. An h2c session without streams (preface only, or idle after one) is closed at the idle limit.
const IDLE_MS = 3000;
let activator: ActivatorBin | undefined;
let app: Awaited<ReturnType<typeof countApp>>;
let port = 0;
const revision = { "knative-serving-namespace": "default", "knative-serving-revision": "hello" };

beforeAll(async () => {
  app = await countApp();
  activator = await startActivatorBin(["--headers-timeout-ms", String(IDLE_MS)], [`127.0.0.1:${app.port}`]);
  port = activator.port;
}, 30_000);
afterAll(async () => {
  activator?.child.kill("SIGKILL");
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
    const r = await idleSessionScenario(port, {
      label: "activator",
      limitMs: IDLE_MS,
      authority: "hello.default",
      headers: revision,
    });
    expect(r.problems).toEqual([]);
  }, 60_000);
});
