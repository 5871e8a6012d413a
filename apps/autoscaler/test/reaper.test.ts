import { spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { alive, until } from "./processes.js";

const here = dirname(fileURLToPath(import.meta.url));
const reaperModule = join(here, "../dist/scalers/local/reaper.js");

/** Group leaders this test started (each `sleep` leads its own group), killed at the end whatever happened. */
const started: number[] = [];
afterAll(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
});

describe("the shared reaper (real /bin/sh watcher, real process groups)", () => {
  it("kills the groups still listed when its owner is SIGKILLed, and spares the ones removed", async () => {
    // The owner: a Node process with one Reaper, three sleeping groups added, the second removed again.
    const script = `
      import { spawn } from "node:child_process";
      import { Reaper } from ${JSON.stringify(reaperModule)};
      const r = new Reaper();
      const groups = [0, 1, 2].map(() => spawn("sleep", ["60"], { detached: true, stdio: "ignore" }).pid);
      r.add([groups[0], groups[1]]);
      r.add([groups[2]]);
      r.remove([groups[1]]);
      console.log(JSON.stringify(groups));
      setInterval(() => {}, 1000);
    `;
    const owner = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    owner.stdout.on("data", (d) => (out += d));
    const groups = await until<number[]>(() => (out.includes("]") ? JSON.parse(out) : undefined), 10_000);
    started.push(...groups);
    expect(groups.every(alive)).toBe(true);
    // Let the watcher read its lines before its owner dies.
    await new Promise((r) => setTimeout(r, 200));
    owner.kill("SIGKILL");
    const [first, removed, third] = groups as [number, number, number];
    await until(() => (alive(first) || alive(third) ? undefined : true), 10_000);
    expect(alive(removed)).toBe(true);
  });
});
