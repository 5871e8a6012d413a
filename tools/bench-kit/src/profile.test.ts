import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  cpuProfileArgs,
  frameCategory,
  printCpuProfile,
  printHeapSnapshot,
  profileInProcess,
  shouldProfile,
  summarizeCpuProfile,
  summarizeHeapSnapshot,
} from "./profile.mjs";

// Real profiles from real node processes: a CPU profile of a busy named function, and a heap snapshot
// holding many objects of one class. The busy functions do a fixed amount of work (about 300 and 200 ms
// on an idle core) rather than spin until a clock says stop: on a loaded machine (CI runs every suite at once)
// 300 ms of wall time can be 20 ms of CPU, less than node's own start-up, and a loop that reads a clock
// spends its preempted time, which the profile weighs by wall time, inside the clock's syscall.
describe("profile summaries", { timeout: 60_000 }, () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "thaw-profile-"));
    vi.stubEnv("THAW_BENCH_PROFILE_DIR", dir);
    vi.spyOn(console, "log").mockImplementation(() => {});
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("finds the busy function of a real CPU profile and keeps idle time apart", () => {
    const { args, file } = cpuProfileArgs("busy child");
    expect(file).toBe(join(dir, "busy-child.cpuprofile"));
    const script =
      "function spinHere(n){let x=0;for(let i=0;i<n;i++)x+=Math.sqrt(x+i);return x}" +
      "spinHere(2e7);setTimeout(()=>spinHere(1),300);";
    execFileSync(process.execPath, [...args, "-e", script]);
    const s = summarizeCpuProfile(JSON.parse(readFileSync(file, "utf8")));
    const spin = s.functions.find((f) => f.name.startsWith("spinHere"));
    expect(spin?.share ?? 0).toBeGreaterThan(0.5);
    expect(s.idleUs).toBeGreaterThan(100_000);
    expect(s.busyUs + s.idleUs).toBeLessThanOrEqual(s.wallUs + 50_000);
    expect(printCpuProfile("busy", file)?.busyUs).toBe(s.busyUs);
    expect(vi.mocked(console.log).mock.calls.some((c) => String(c[0]).includes("spinHere"))).toBe(true);
  });

  it("profiles a function in this process and names it among the busiest", async () => {
    const spinInProcess = () => {
      let x = 0;
      for (let i = 0; i < 1.3e7; i++) x += Math.sqrt(x + i);
      return x;
    };
    await profileInProcess("in process", spinInProcess);
    const s = summarizeCpuProfile(JSON.parse(readFileSync(join(dir, "in-process.cpuprofile"), "utf8")));
    expect(s.functions.slice(0, 3).some((f) => f.name.startsWith("spinInProcess"))).toBe(true);
  });

  it("groups frames by our part, dependency, node module and native code", () => {
    expect(
      frameCategory({ functionName: "x", url: "file:///r/apps/queue-proxy/dist/h1-connection.js" }),
    ).toBe("thaw:queue-proxy/h1-connection");
    expect(frameCategory({ functionName: "x", url: "file:///r/node_modules/undici/lib/a.js" })).toBe(
      "undici",
    );
    expect(
      frameCategory({ functionName: "x", url: "file:///r/node_modules/@hono/node-server/dist/a.js" }),
    ).toBe("@hono/node-server");
    expect(frameCategory({ functionName: "x", url: "node:internal/stream_base_commons" })).toBe(
      "node:stream_base_commons",
    );
    expect(frameCategory({ functionName: "writev", url: "" })).toBe("(native) writev");
    expect(frameCategory({ functionName: "(garbage collector)", url: "" })).toBe("(garbage collector)");
  });

  it("counts a real heap snapshot's objects by constructor", () => {
    const file = join(dir, "held.heapsnapshot");
    const script =
      "class HeldThing{constructor(i){this.i=i;this.s='x'+i}}globalThis.k=[];" +
      `for(let i=0;i<5000;i++)globalThis.k.push(new HeldThing(i));require('v8').writeHeapSnapshot(${JSON.stringify(file)})`;
    execFileSync(process.execPath, ["-e", script]);
    const s = summarizeHeapSnapshot(JSON.parse(readFileSync(file, "utf8")));
    const held = s.rows.find((r) => r.name === "HeldThing");
    expect(held?.count).toBe(5000);
    expect(s.totalBytes).toBeGreaterThan(held?.bytes ?? 0);
    expect(printHeapSnapshot("held", file, { per: { count: 5000, what: "thing" } })?.rows.length).toBe(
      s.rows.length,
    );
  });

  it("profiles after a MISS by default, and as THAW_BENCH_PROFILE says", () => {
    expect(shouldProfile(false)).toBe(true);
    expect(shouldProfile(true)).toBe(false);
    vi.stubEnv("THAW_BENCH_PROFILE", "always");
    expect(shouldProfile(true)).toBe(true);
    vi.stubEnv("THAW_BENCH_PROFILE", "never");
    expect(shouldProfile(false)).toBe(false);
    vi.stubEnv("THAW_BENCH_PROFILE", "sometimes");
    expect(() => shouldProfile(false)).toThrow(/THAW_BENCH_PROFILE must be miss, always or never/);
  });
});
