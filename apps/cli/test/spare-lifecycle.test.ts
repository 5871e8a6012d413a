/**
 * `thaw up` keeps one spare thaw-queue-proxy waiting for the next pod (the local scaler's spare mode): a real
 * `thaw up` child, its pods and its spare real processes, found through /proc by a per-test marker.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { echoApp, request } from "./support/stack-harness.js";
import { cmdline, markedPids, Up, until, untilEnded } from "./support/up-process.js";

const host = { host: "echo.localhost" };
const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** `thaw up` with one service at zero; resolves once it listens and its spare waits. */
async function upAtZero(): Promise<{ up: Up; marker: string; spare: () => number[] }> {
  const marker = `thaw-spare-${randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), "thaw-spare-"));
  const config = join(dir, "thaw.config.yaml");
  writeFileSync(
    config,
    [
      "listen: 127.0.0.1:0",
      "services:",
      "  - name: echo",
      "    hosts: [echo.localhost]",
      "    readinessProbe: { httpGet: { path: /healthz } }",
      "    run:",
      `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(echoApp)}]`,
    ].join("\n"),
  );
  const u = new Up(config, marker);
  cleanup.push(() => {
    if (u.proc.exitCode === null) u.proc.kill("SIGKILL");
    for (const pid of markedPids(marker)) if (pid !== u.proc.pid) process.kill(pid, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  await u.ready();
  const spare = () => markedPids(marker).filter((pid) => cmdline(pid).startsWith("thaw-spare-qp"));
  await until(() => spare().length === 1, 20_000, "the spare queue-proxy to wait");
  return { up: u, marker, spare };
}

describe("thaw up's spare queue-proxy (real processes)", () => {
  it("the first cold start's queue-proxy is the spare; a new spare waits after it; SIGTERM leaves none", async () => {
    const { up: u, marker, spare } = await upAtZero();
    const [first] = spare();
    expect((await request(u.url, { headers: host })).status).toBe(200);
    // The spare became the pod's queue-proxy: same process, titled after its pod.
    expect(cmdline(first as number)).toMatch(/^thaw-queue-proxy echo-/);
    await until(() => spare().length === 1 && spare()[0] !== first, 20_000, "the next spare");
    u.proc.kill("SIGTERM");
    expect(await u.exited()).toBe(0);
    expect(markedPids(marker)).toEqual([]);
  });

  it("SIGKILL of thaw up: the waiting spare exits too (its stdin closes)", async () => {
    const { up: u, marker, spare } = await upAtZero();
    const [pid] = spare();
    u.proc.kill("SIGKILL");
    await u.exited();
    await untilEnded(marker, [pid as number], 10_000, "every process of thaw up to be gone");
  });
});
