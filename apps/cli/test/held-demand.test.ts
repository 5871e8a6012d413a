import { coldBurst, figuresLine, percentile, scaleReached, withinOneTick } from "@thaw/bench-kit/cold-burst";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appService, helloApp } from "./support/stack-harness.js";
import { startUp, type UpRun } from "./support/up-process.js";

// Issue 28.1: a burst held at zero is demand. 10 requests, containerConcurrency 2, Knative's target
// utilisation 70 %: ceil(10 / (2 × 0.7)) = 8 pods, asked for while the first pod is still starting.
const START_MS = 3000;
const WORK_MS = 1500;
const N = 10;
const CC = 2;
const KNATIVE = Math.ceil(N / (CC * 0.7));
/**
 * Counted twice would ask for ceil(2N / 1.4) = 15. Counted once, the second in which the hook hands the burst
 * to the activator can read up to 2N, one of at least four seconds in the panic window by then: 9 at most
 * (docs/demand.md, Limits).
 */
const AT_MOST = Math.ceil((1.25 * N) / (CC * 0.7));

describe("thaw up: requests held at zero count as load (issue 28.1)", () => {
  let run: UpRun;

  beforeAll(async () => {
    run = await startUp("thaw-held", [
      "listen: 127.0.0.1:0",
      "services:",
      ...appService("hello", helloApp, [`    containerConcurrency: ${CC}`], {
        STARTUP_DELAY_MS: String(START_MS),
        WORK_MS: String(WORK_MS),
      }),
    ]);
  }, 30_000);

  afterAll(async () => {
    await run?.dispose();
  });

  it("a burst of 10 at zero asks for Knative's 8 pods within one decider tick, and finishes sooner than on one pod", async () => {
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
    // Knative's arithmetic, within one decider tick of the poke's step to 1 (the burst's first stat), while
    // the held requests wait for the first pod; never what counting twice would ask for (AT_MOST).
    const reached = scaleReached(r, KNATIVE);
    // One decider tick: in one step (1, then 8) however late a loaded machine ran it, or within the tick's
    // 2 s when the held count came in two reports (each steps the decider at once while no pod is ready).
    expect(withinOneTick(reached), JSON.stringify(reached)).toBe(true);
    expect(reached.readyThen).toBe(0);
    expect(r.maxDesired).toBeLessThanOrEqual(AT_MOST);
    // One pod at CC 2 serves 10 in 5 rounds of WORK_MS after its start; spread over pods, the middle request
    // waits about one start (plus the other pods' own start) and one round.
    expect(percentile(r.latenciesMs, 50)).toBeLessThan(START_MS + 3 * WORK_MS);
  }, 60_000);
});
