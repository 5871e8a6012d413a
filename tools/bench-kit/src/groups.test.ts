import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { groupCpuMicros, groupCpuTicks, microsPerTick } from "./cpu.mjs";
import { killGroup, startGroup } from "./groups.mjs";
import { canConnect, freePort, waitPort } from "./ports.mjs";
import { sleep } from "./sleep.mjs";

// A server that burns 300 ms of CPU before listening, and forks a second process into its group.
const SERVER = `
const net = require("node:net");
const { spawn } = require("node:child_process");
spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
// Burn by the process's own CPU clock, not the wall clock: on a busy machine 300 ms of wall time may be
// far less CPU.
const used = () => { const u = process.cpuUsage(); return u.user + u.system; };
while (used() < 300000);
process.stderr.write("warming up\\n");
net.createServer((s) => s.end()).listen(Number(process.argv[1]), "127.0.0.1");
`;

/** Processes of group `pgid` that are not zombies (a zombie keeps its /proc entry until reaped). */
function liveMembers(pgid: number): number {
  let n = 0;
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(f[2]) === pgid && f[0] !== "Z") n++;
    } catch {
      // exited meanwhile
    }
  }
  return n;
}

// Bounds are generous: CI runs every suite at once on two cores, and this server burns 300 ms of CPU first.
describe("startGroup, groupCpuTicks and killGroup", { timeout: 60_000 }, () => {
  it("runs a server as its own group, counts its CPU and kills the whole group", async () => {
    const port = await freePort();
    const server = startGroup("burner", process.execPath, ["-e", SERVER, String(port)]);
    const pgid = server.pid ?? -1;
    await waitPort(port, server, { attempts: 1500, intervalMs: 20 });
    expect(liveMembers(pgid)).toBe(2); // the server and the process it forked
    expect(server.stderrTail()).toContain("warming up");
    // At least 200 of the 300 ms burnt (ticks are 10 ms at the usual CLK_TCK of 100).
    expect(groupCpuTicks(pgid)).toBeGreaterThanOrEqual(200_000 / microsPerTick());
    expect(groupCpuMicros(pgid)).toBeGreaterThanOrEqual(200_000);
    killGroup(server);
    for (let i = 0; i < 1000 && (await canConnect(port)); i++) await sleep(10);
    expect(await canConnect(port)).toBe(false);
    for (let i = 0; i < 1000 && liveMembers(pgid) > 0; i++) await sleep(10);
    expect(liveMembers(pgid)).toBe(0); // the forked child went with it
  });

  it("counts nothing for a group that does not exist", () => {
    expect(groupCpuTicks(2 ** 22 + 12345)).toBe(0);
  });

  it("reports an unknown command through stderrTail and waitPort", async () => {
    const port = await freePort();
    const server = startGroup("nope", "/nonexistent/thaw-bench-kit", []);
    await expect(waitPort(port, server, { attempts: 3, intervalMs: 10 })).rejects.toThrow(
      /nope did not listen.*ENOENT/,
    );
    expect(server.pid).toBeUndefined();
    killGroup(server);
  });
});
