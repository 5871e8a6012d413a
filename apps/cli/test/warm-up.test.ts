/**
 * `thaw up`'s start-up warm-up (src/warm-up.ts): one cold start through a throwaway in-process copy of the
 * stack. In process: it answers, and it gives its listeners back once closed, or fails quietly when bounded
 * too tightly. Through a real `thaw up` child: it leaves no service, scale event, cold start, metric or log
 * line behind, and no process.
 */
import { afterEach, describe, expect, it } from "vitest";
import { warmUp } from "../src/warm-up.js";
import { echoService, request } from "./support/stack-harness.js";
import { podPids, startUp, type UpRun, until } from "./support/up-process.js";

/** Listening TCP servers of this process (the warm-up's gateway and loopback pod are two while up). */
const servers = () => process.getActiveResourcesInfo().filter((r) => r === "TCPServerWrap").length;

describe("warmUp (in process)", () => {
  it("runs its cold start to a 200, tells debug nothing, and closes both of its listeners", async () => {
    const before = servers();
    const lines: string[] = [];
    const w = warmUp({ debug: (l) => lines.push(l) });
    await w.answered;
    expect(lines).toEqual([]);
    await w.closed;
    // A closed server's handle is released a moment after its close callback.
    await until(() => servers() === before, 5000, "the warm-up's listeners to close");
  });

  it("bounded below what a cold start takes, it gives up, says why to debug only, and still closes", async () => {
    const before = servers();
    const lines: string[] = [];
    const w = warmUp({ timeoutMs: 1, debug: (l) => lines.push(l) });
    await w.answered;
    await w.closed;
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warm-up failed \(ignored\): Error: no answer within 1 ms/);
    await until(() => servers() === before, 5000, "the warm-up's listeners to close");
  });
});

describe("thaw up's warm-up (real thaw up child process)", () => {
  let run: UpRun | undefined;
  afterEach(async () => {
    await run?.dispose();
    run = undefined;
  });

  it("leaves no service, scale event, cold start, metric, log line or pod behind", async () => {
    run = await startUp(
      "thaw-wu",
      ["listen: 127.0.0.1:0", "services:", ...echoService()],
      ["--log-format", "json"],
    );
    const { up, marker } = run;
    // The copy closes after the listening line: give it time, then look for any trace of it.
    await new Promise((r) => setTimeout(r, 1500));
    const revisions = (await (await fetch(`${up.url}/_thaw/api/revisions`)).json()) as {
      name: string;
      desiredScale: number;
    }[];
    expect(revisions.map((r) => [r.name, r.desiredScale])).toEqual([["echo", 0]]);
    const metrics = await (await fetch(`${up.url}/_thaw/metrics`)).text();
    expect(metrics).not.toMatch(/warm-up/);
    expect(podPids(marker)).toEqual([]);
    expect(up.out).not.toMatch(/warm-up|"coldstart"|"scale"/);
    // The real service still wakes as before, and its cold start is the only one logged.
    expect((await request(up.url, { headers: { host: "echo.localhost" } })).status).toBe(200);
    await until(() => up.out.includes('"coldstart"'), 20_000, "the cold-start record");
    expect(up.out.match(/"msg":"coldstart"/g)).toHaveLength(1);
    expect(up.out).not.toMatch(/warm-up/);
  });
});
