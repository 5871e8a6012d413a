/** The harness itself: clear errors for what is missing or late, and nothing left running afterwards. */
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startControlPlane } from "../src/control-plane.js";
import { k8sBinaries } from "../src/k8s-binaries.js";
import { kubectl } from "../src/kubectl.js";

/** PIDs of processes whose command line mentions `text` (the state folder is in every component's flags). */
function processesMentioning(text: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((p) => /^\d+$/.test(p))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text)) out.push(Number(pid));
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("real-cluster harness", () => {
  const cache = process.env.XDG_CACHE_HOME;
  afterEach(() => {
    if (cache === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = cache;
  });

  it("a missing binary is named with the command that builds it", async () => {
    process.env.XDG_CACHE_HOME = mkdtempSync(join(tmpdir(), "thaw-empty-cache-"));
    expect(() => k8sBinaries()).toThrow(/kube-apiserver v1\.\d+\.\d+ is not built .*run `npm run k8s:build`/);
    await expect(startControlPlane()).rejects.toThrow(/kube-apiserver .* is not built/);
  });

  it("a control plane that is not up in time throws the late component's last log lines and leaves nothing running", async () => {
    const dir = mkdtempSync(join(tmpdir(), "thaw-cluster-late-"));
    const err = await startControlPlane({ dir, timeoutMs: 1 }).catch((e: Error) => e);
    expect(String(err)).toMatch(/etcd was not healthy in time.*Last lines of .*etcd\.log/s);
    expect(processesMentioning(dir)).toEqual([]);
    expect(existsSync(dir)).toBe(false);
  });

  it("starts etcd and the control plane, answers kubectl, and stop() ends every PID and removes the state", async () => {
    const t0 = Date.now();
    const cp = await startControlPlane();
    try {
      console.log(`control plane ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const pids = [...cp.components.values()].map((c) => c.pid);
      expect([...cp.components.keys()]).toEqual([
        "etcd",
        "kube-apiserver",
        "kube-controller-manager",
        "kube-scheduler",
      ]);
      expect(pids.every(alive)).toBe(true);
      const version = await kubectl(cp.kubeconfigPath, ["version", "-o", "json"]);
      expect(version.code).toBe(0);
      expect(JSON.parse(version.stdout).serverVersion.gitVersion).toMatch(/^v1\.\d+\.\d+$/);
      await cp.stop();
      expect(pids.filter(alive)).toEqual([]);
      expect(existsSync(cp.dir)).toBe(false);
    } finally {
      await cp.stop();
    }
  });
});
