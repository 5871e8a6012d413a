/**
 * Drain before stop, for a container: an SSE stream and a websocket in flight on the container's replica
 * finish whole when it is scaled away, and only then is the container stopped, with its own stop signal
 * and stop timeout (`--stop-signal`, `--stop-timeout`), not the engine's defaults (SIGTERM, 10 s).
 * The container runs drain-app.mjs with the host's node, its /usr mounted read-only (Debian's merged
 * /usr: node and every library it links are under it), host network, on a real podman API service.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { arrivals, sseStream, wsSession } from "./support/drain-streams.js";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const HOST = "drain.localhost";
const rev = { namespace: "default", name: "drain" };
const repo = resolve(import.meta.dirname, "../../..");
const EVENTS = 15;
const EVERY_MS = 200;
const STOP_TIMEOUT_S = 2;

describe("a container scaled away: streams finish first, then its own stop signal and timeout", () => {
  let engine: PodmanEngine;
  const dir = mkdtempSync(join(tmpdir(), "thaw-container-drain-"));
  const log = join(dir, "arrivals.jsonl");
  beforeAll(async () => {
    engine = await startPodman();
    await engine.podman([
      "create",
      "--name",
      "drain1",
      "--network",
      "host",
      "--stop-signal",
      "SIGINT",
      "--stop-timeout",
      String(STOP_TIMEOUT_S),
      "-e",
      "PORT=18971",
      "-e",
      "SERVING_POD=drain1",
      "-e",
      `DRAIN_LOG=${log}`,
      "-e",
      "DRAIN_IGNORE_SIGNAL=SIGINT",
      "-v",
      "/usr:/usr:ro",
      "-v",
      `${repo}:${repo}:ro`,
      "-v",
      `${dir}:${dir}`,
      "--entrypoint",
      "/usr/bin/node",
      "localhost/thaw-test/httpd:1",
      join(repo, "apps/cli/test/support/drain-app.mjs"),
    ]);
  }, 120_000);
  afterAll(async () => {
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("an SSE stream and a websocket finish whole; then SIGINT (its StopSignal) and SIGKILL after its 2 s StopTimeout", async () => {
    const { stack, dispose } = await stackFrom([
      "drain: { quietPeriod: 100ms }",
      "services:",
      "  - name: drain",
      `    hosts: [${HOST}]`,
      "    timeoutSeconds: 30",
      "    autoscaling: { min-scale: 1, max-scale: 1 }",
      `    container: { name: drain1, port: 18971, socket: ${engine.socket} }`,
    ]);
    try {
      await until(() => stack.scaler.pods(rev).some((p) => p.ready), 30_000, "the container ready");
      const sse = sseStream(stack.url, HOST, "sse-1", EVENTS, EVERY_MS);
      const ws = wsSession(stack.url, HOST, "ws-1", EVENTS, EVERY_MS);
      await until(() => sse.pod !== undefined && ws.pod !== undefined, 10_000, "both streams open");
      const ended: number[] = [];
      for (const ex of [sse, ws]) void ex.done.then(() => ended.push(Date.now()));
      // The autoscaler never scales away a replica with streams open: the revision is taken from it.
      stack.service.removeRevision(rev);
      const drainAt = Date.now();
      void stack.scaler.scale(rev, 0);
      expect(await sse.done).toEqual({
        status: 200,
        data: Array.from({ length: EVENTS }, (_, i) => String(i)),
        ended: true,
      });
      expect(await ws.done).toEqual({
        echoes: Array.from({ length: EVENTS }, (_, i) => `echo m${i}`),
        closeCode: 1000,
      });
      const state = async () =>
        (
          await engine.podman(["inspect", "--format", "{{.State.Status}} {{.State.ExitCode}}", "drain1"])
        ).trim();
      await until(async () => (await state()).startsWith("exited"), 30_000, "drain1 stopped");
      const stoppedAt = Date.now();
      const signal = arrivals(log).find((a) => a.kind === "signal");
      expect(signal?.id).toBe("SIGINT");
      const lastEnd = Math.max(...ended);
      // Stopped only after both streams ended; killed by the engine after its own timeout (137 = SIGKILL).
      expect(signal?.at ?? 0).toBeGreaterThanOrEqual(lastEnd);
      expect(await state()).toBe("exited 137");
      const killMs = stoppedAt - (signal?.at ?? 0);
      expect(killMs).toBeGreaterThanOrEqual(STOP_TIMEOUT_S * 1000 - 200);
      expect(killMs).toBeLessThan(8000);
      console.log(
        `THAW-FIGURES containers drain: streams ended ${lastEnd - drainAt} ms after the scale-down, ` +
          `${signal?.id} ${(signal?.at ?? 0) - lastEnd} ms after the last one, stopped ${killMs} ms after the signal`,
      );
    } finally {
      await dispose();
    }
  }, 120_000);
});
