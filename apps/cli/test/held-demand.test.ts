import { coldBurst, figuresLine, percentile } from "@thaw/bench-kit/cold-burst";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appService, helloApp } from "./support/stack-harness.js";
import { startUp, type UpRun } from "./support/up-process.js";

// Issue 28.1: a burst held at zero is demand. 10 requests, containerConcurrency 2, Knative's target
// utilisation 70 %: ceil(10 / (2 × 0.7)) = 8 pods, asked for while the first pod is still starting.
const START_MS = 3000;
const WORK_MS = 1500;
const N = 10;

describe("thaw up: requests held at zero count as load (issue 28.1)", () => {
  let run: UpRun;

  beforeAll(async () => {
    run = await startUp("thaw-held", [
      "listen: 127.0.0.1:0",
      "services:",
      ...appService("hello", helloApp, ["    containerConcurrency: 2"], {
        STARTUP_DELAY_MS: String(START_MS),
        WORK_MS: String(WORK_MS),
      }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await run?.dispose();
  });

  it("a burst of 10 at zero asks for 7-8 pods before the first one is ready, and finishes sooner than on one pod", async () => {
    const port = Number(new URL(run.up.url).port);
    const r = await coldBurst({
      port,
      host: "hello.localhost",
      n: N,
      revisionsUrl: `${run.up.url}/_thaw/api/revisions`,
      name: "hello",
    });
    console.log(figuresLine("thaw-up burst 10 at zero, CC 2, start 3 s, work 1.5 s", r));
    expect(r.statuses.filter((s) => s !== 200)).toEqual([]);
    // Knative's arithmetic: ceil(10 / 1.4) = 8 (7 when the first report's average is a little under 10).
    expect(r.maxDesired).toBeGreaterThanOrEqual(7);
    // The first regular tick after the burst asks for 7 or 8, while the held requests wait for the first pod.
    const early = r.timeline.filter(([t]) => t < START_MS).map(([, d]) => d);
    expect(Math.max(0, ...early)).toBeGreaterThanOrEqual(7);
    // One pod at CC 2 serves 10 in 5 rounds of WORK_MS after its start; spread over pods, the middle request
    // waits about one start (plus the other pods' own start) and one round.
    expect(percentile(r.latenciesMs, 50)).toBeLessThan(START_MS + 3 * WORK_MS);
  }, 60_000);
});
