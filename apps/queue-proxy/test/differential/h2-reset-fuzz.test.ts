/**
 * Property run for rapid reset (CVE-2023-44487): random interleavings of HEADERS, DATA and RST_STREAM frames
 * of up to 8 streams on one h2c connection, written at once through the real queue-proxy to an app that
 * counts what reaches it. A stream reset by the client never reaches the app; every other stream is
 * answered 200. THAW_H2_FUZZ_RUNS sets the number of cases (default 200); THAW_H2_FUZZ_SEED replays a run.
 */
import { countApp, h2Frames, type RawStream } from "@thaw/bench-kit/h2-abuse";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcess } from "../helpers.js";

const RUNS = Number(process.env["THAW_H2_FUZZ_RUNS"] ?? 200);
const SEED = process.env["THAW_H2_FUZZ_SEED"];
if (!Number.isInteger(RUNS) || RUNS < 1) {
  throw new Error(
    `THAW_H2_FUZZ_RUNS must be a positive integer, got ${JSON.stringify(process.env["THAW_H2_FUZZ_RUNS"])}`,
  );
}

let app: Awaited<ReturnType<typeof countApp>>;
let qp: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  app = await countApp();
  qp = await startInProcess(app.port, { THAW_USER_PORT_NAME: "h2c" });
}, 30_000);
afterAll(async () => {
  await qp?.close();
  await app?.close();
});

const stream = fc.record({
  body: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
  reset: fc.boolean(),
  at: fc.nat(),
});
const scenario = fc.record({
  streams: fc.array(stream, { minLength: 1, maxLength: 8 }),
  order: fc.array(fc.nat(), { minLength: 1, maxLength: 40 }),
});

describe("queue-proxy: generated HTTP/2 frame interleavings with resets", () => {
  it(`${RUNS} interleavings of HEADERS/DATA/RST_STREAM: no reset stream reaches the app`, async () => {
    let run = 0;
    let resets = 0;
    let served = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ streams, order }) => {
        run++;
        const raw: RawStream[] = streams.map((s, i) => ({
          path: `/${s.reset ? "rr" : "ok"}/${run}-${i}`,
          body: s.body,
          resetAfter: s.reset ? s.at % (s.body.length + 1) : null,
        }));
        const before = app.count();
        const answers = await h2Frames(qp.ports.serving, { streams: raw, order });
        // Every stream that was not reset is answered; by then the reset ones had their turn.
        raw.forEach((s, i) => {
          if (s.resetAfter === null) expect(answers[i], `${s.path} answered`).toBe(200);
        });
        resets += raw.filter((s) => s.resetAfter !== null).length;
        served += raw.filter((s) => s.resetAfter === null).length;
        expect(app.count() - before, "reset streams that reached the app").toBe(0);
      }),
      { numRuns: RUNS, ...(SEED ? { seed: Number(SEED) } : {}) },
    );
    process.stderr.write(
      `THAW-FIGURES ${JSON.stringify({ test: "queue-proxy h2 reset fuzz", cases: RUNS, resetStreams: resets, servedStreams: served, resetReached: 0 })}\n`,
    );
  }, 300_000);
});
