import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseWrk, runWrk, toMs, wrkArgs } from "./wrk.mjs";

// Reports captured from wrk 4.1.0 against loopback servers by scripts/capture-wrk.mjs.
const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname;
const report = (name: string) => readFileSync(fixture(name), "utf8");

describe("toMs", () => {
  it.each([
    ["microseconds", "52.31us", 0.05231],
    ["milliseconds", "1.20ms", 1.2],
    ["seconds", "2.00s", 2000],
    ["minutes", "1.50m", 90_000],
    ["hours", "1.00h", 3_600_000],
    ["integer", "7ms", 7],
    ["no unit", "52.31", Number.NaN],
    ["unknown unit", "3.00ns", Number.NaN],
    ["empty", "", Number.NaN],
  ])("%s", (_name, text, want) => {
    if (Number.isNaN(want)) expect(toMs(text)).toBeNaN();
    else expect(toMs(text)).toBeCloseTo(want, 9);
  });
});

describe("wrkArgs", () => {
  it.each([
    [
      "defaults: one thread, --latency",
      { url: "http://127.0.0.1:1/", connections: 64, seconds: 3 },
      ["-t1", "-c64", "-d3s", "--latency", "http://127.0.0.1:1/"],
    ],
    [
      "threads and headers before the url",
      {
        url: "http://127.0.0.1:1/",
        connections: 1,
        seconds: 2,
        threads: 2,
        headers: { Host: "a.localhost" },
      },
      ["-t2", "-c1", "-d2s", "--latency", "-H", "Host: a.localhost", "http://127.0.0.1:1/"],
    ],
    [
      "a Lua script after the headers",
      { url: "http://127.0.0.1:1/", connections: 8, seconds: 1, script: "/tmp/r.lua" },
      ["-t1", "-c8", "-d1s", "--latency", "-s", "/tmp/r.lua", "http://127.0.0.1:1/"],
    ],
  ])("%s", (_name, options, want) => {
    expect(wrkArgs(options)).toEqual(want);
  });
});

describe("parseWrk on captured reports", () => {
  it.each([
    [
      "200s only",
      "wrk-ok.txt",
      { requests: 49640, rps: 45089.36, mean: 0.22066, p50: 0.072, p75: 0.118, p90: 0.325, p99: 3.1 },
      { non2xx: 0, socketErrors: 0, errors: 0 },
    ],
    [
      "every fourth answer a 503",
      "wrk-non2xx.txt",
      { requests: 53334, rps: 53272.63, mean: 0.1527, p50: 0.064, p75: 0.093, p90: 0.174, p99: 2.56 },
      { non2xx: 13333, socketErrors: 0, errors: 13333 },
    ],
    [
      "dropped connections",
      "wrk-socket-errors.txt",
      { requests: 65, rps: 32.31, mean: 0.14463, p50: 0.086, p75: 0.148, p90: 0.265, p99: 0.845 },
      { non2xx: 0, socketErrors: 7, errors: 7 },
    ],
  ])("%s (%s)", (_name, file, timings, counts) => {
    const r = parseWrk(report(file));
    expect(r).toBeDefined();
    for (const [k, v] of Object.entries(timings)) expect(r?.[k as keyof typeof timings]).toBeCloseTo(v, 9);
    expect(r).toMatchObject(counts);
  });

  it("has no result when wrk could not connect", () => {
    expect(parseWrk(report("wrk-refused.txt"))).toBeUndefined();
  });

  it("sums every kind of socket error", () => {
    const text = report("wrk-socket-errors.txt").replace(
      "connect 0, read 7, write 0, timeout 0",
      "connect 1, read 7, write 2, timeout 30",
    );
    expect(parseWrk(text)).toMatchObject({ socketErrors: 40, errors: 40 });
  });

  it("gives NaN percentiles for a report without --latency", () => {
    const text = report("wrk-ok.txt").replace(/ {2}Latency Distribution\n(?: +\d+% +\S+\n)+/, "");
    expect(text).not.toContain("Distribution");
    const r = parseWrk(text);
    expect(r?.requests).toBe(49640);
    expect(r?.mean).toBeCloseTo(0.22066, 9);
    expect(r?.p50).toBeNaN();
    expect(r?.p99).toBeNaN();
  });
});

describe("runWrk", () => {
  const dir = mkdtempSync(join(tmpdir(), "bench-kit-wrk-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** A stand-in for wrk: records its arguments, prints a captured report, exits with `code`. */
  function fakeWrk(name: string, body: string): string {
    const bin = join(dir, name);
    writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$@" > "${bin}.args"\n${body}\n`);
    chmodSync(bin, 0o755);
    return bin;
  }
  const base = { url: "http://127.0.0.1:9/", connections: 4, seconds: 1, headers: { Host: "h.localhost" } };

  it("passes the arguments and resolves with the parsed report", async () => {
    const bin = fakeWrk("ok", `cat '${fixture("wrk-ok.txt")}'`);
    const r = await runWrk({ ...base, bin });
    expect(r).toEqual(parseWrk(report("wrk-ok.txt")));
    expect(readFileSync(`${bin}.args`, "utf8").trim().split("\n")).toEqual(wrkArgs(base));
  });

  it("rejects with wrk's output when wrk failed", async () => {
    const bin = fakeWrk("refused", `cat '${fixture("wrk-refused.txt")}'; exit 1`);
    await expect(runWrk({ ...base, bin })).rejects.toThrow(/wrk failed \(exit 1\): unable to connect/);
  });

  it("kills a stuck wrk after its duration plus the grace time", async () => {
    const bin = fakeWrk("stuck", "exec sleep 30");
    const t0 = performance.now();
    await expect(runWrk({ ...base, seconds: 0, graceSeconds: 0.2, bin })).rejects.toThrow(/SIGKILL/);
    expect(performance.now() - t0).toBeLessThan(10_000); // well under the 30 s sleep, with room for a loaded CI
  });

  it("rejects when wrk cannot be started", async () => {
    await expect(runWrk({ ...base, bin: join(dir, "missing") })).rejects.toThrow(/wrk failed to start/);
  });
});
