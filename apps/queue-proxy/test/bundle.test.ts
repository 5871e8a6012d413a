import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { baseEnv, get, runBin } from "./helpers.js";
import { sharedBackend } from "./shared-backend.js";

const backend = sharedBackend();
/** What the image runs (scripts/bundle.mjs, infra/docker/queue-proxy.Dockerfile). */
const BUNDLE = fileURLToPath(new URL("../dist/queue-proxy.mjs", import.meta.url));
const alone = mkdtempSync(join(tmpdir(), "thaw-qp-bundle-"));
afterAll(() => rmSync(alone, { recursive: true, force: true }));

describe("the one-file queue-proxy the image runs", () => {
  it("starts from a folder of its own (no node_modules, no other module) and proxies to the app", async () => {
    const entry = join(alone, "queue-proxy.mjs");
    copyFileSync(BUNDLE, entry);
    const child = await runBin(
      baseEnv(backend.port, {
        SERVING_READINESS_PROBE: JSON.stringify({
          tcpSocket: { port: backend.port, host: "127.0.0.1" },
          successThreshold: 1,
        }),
      }),
      entry,
    );
    try {
      expect(child.ports.serving, child.stderr()).toBeGreaterThan(0);
      const probe = await get(`http://127.0.0.1:${child.ports.serving}/`, {
        "user-agent": "Knative-Activator-Probe",
        "k-network-probe": "queue",
      });
      expect(probe.status).toBe(200);
      expect(probe.body).toBe("queue");
      const res = await get(`http://127.0.0.1:${child.ports.serving}/bundled?x=1`);
      expect(res.status).toBe(200);
      expect(backend.seen.some((s) => s.url === "/bundled?x=1")).toBe(true);
    } finally {
      child.proc.kill("SIGKILL");
      await child.exited;
    }
  });
});
