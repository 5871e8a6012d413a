import http from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { memoryMiB } from "./support/big-body.js";
import { echoConfig } from "./support/stack-harness.js";
import { startUp, type UpRun } from "./support/up-process.js";

// Issue 26: the bodies of held requests were kept whole for a replay, each up to bodyBufferBytes (1 MiB), so
// a held burst cost maxQueue × 1 MiB. In `thaw up` the gateway hands requests held while cold to its
// in-process activator, whose throttler holds them for the one pod's one slot: there 300 POSTs of 1 MiB were
// all kept at once. One budget per process now bounds them (16 MiB per revision by default); the rest stream
// once, and every request is still served, its body whole.
const HELD = 300;
const BODY = Buffer.alloc(1024 * 1024, 120);
/**
 * The revision's budget (the default), plus what a held request costs whatever its body: one chunk (64 KiB
 * at most) in each stream layer between its socket and the activator (the gateway's, the hook's and the
 * activator's Request copies among them) and its share of the heap; 768 KiB. Before the budget: 300 MiB of
 * bodies alone.
 */
const MAX_GROWTH_MIB = 16 + (HELD * 3) / 4;

let run: UpRun | undefined;
afterAll(async () => {
  await run?.dispose();
}, 30_000);

/** A POST of `BODY` to the echo service on its own connection: its status and answer. */
function post(url: string, i: number): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method: "POST",
        path: `/held${i}?size=1&sleep=5`,
        agent: false,
        headers: { host: "echo.localhost", "content-length": String(BODY.length) },
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

describe("thaw up: held request bodies are bounded in total", () => {
  it("300 POSTs of 1 MiB held for one slot stay within the budget, and every one is served whole", async () => {
    // One pod at containerConcurrency 1, cold: the burst is held by the hook, then queued in the activator.
    run = await startUp(
      "thaw-held-bodies",
      echoConfig([], ["    containerConcurrency: 1", "    autoscaling: { max-scale: 1 }"]),
    );
    const pid = run.up.proc.pid as number;
    const before = memoryMiB(pid);
    const served = await Promise.all(Array.from({ length: HELD }, (_, i) => post(run?.up.url ?? "", i)));
    const after = memoryMiB(pid);
    const whole = served.filter((s) => s.status === 200 && s.body.includes(`"size":${BODY.length}`));
    const figures = {
      test: "held-bodies/thaw-up",
      sent: HELD,
      bodyBytes: BODY.length,
      answered: served.filter((s) => s.status === 200).length,
      whole: whole.length,
      rssMiB: [before.now, after.peak, after.now],
    };
    process.stderr.write(`THAW-FIGURES ${JSON.stringify(figures)}\n`);
    expect(served.map((s) => s.status)).toEqual(Array(HELD).fill(200));
    expect(whole.length).toBe(HELD);
    expect(after.peak - before.now).toBeLessThan(MAX_GROWTH_MIB);
  }, 120_000);
});
