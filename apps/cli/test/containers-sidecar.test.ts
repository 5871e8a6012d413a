/**
 * `container.queueProxy: container`: each replica's queue-proxy is a container of Thaw's queue-proxy image
 * in the app container's network namespace. The image is the one `npm run images` built (.ci/run builds it
 * before the tests), copied from its storage into this test's podman with `podman save` / `podman load`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPONENTS, defaultCacheDir, imageRef, podman as imagesPodman, setupPodman } from "@thaw/images";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { request, stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const HOST = "side.localhost";
const rev = { namespace: "default", name: "side" };
/** The queue-proxy image `npm run images` tags with the package's version. */
const IMAGE = (() => {
  const qp = COMPONENTS.find((c) => c.name === "queue-proxy");
  if (!qp) throw new Error("tools/images has no queue-proxy component");
  return imageRef(fileURLToPath(new URL("../../../", import.meta.url)), qp);
})();

describe("a container's queue-proxy as a container beside it", () => {
  let engine: PodmanEngine;
  const dir = mkdtempSync(join(tmpdir(), "thaw-sidecar-"));
  beforeAll(async () => {
    engine = await startPodman();
    const archive = join(dir, "qp.tar");
    const pm = setupPodman(defaultCacheDir());
    try {
      await imagesPodman(pm, ["save", "--format", "oci-archive", "-o", archive, IMAGE]);
    } catch (e) {
      throw new Error(`${IMAGE} is not in ${defaultCacheDir()}: run npm run images first (${String(e)})`);
    }
    await engine.podman(["load", "-i", archive]);
    await engine.podman([
      "create",
      "--name",
      "side1",
      "--network",
      "host",
      "-e",
      "PORT=18981",
      "localhost/thaw-test/httpd:1",
    ]);
  }, 300_000);
  afterAll(async () => {
    await engine?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it("a cold request starts the app and its queue-proxy container, answered through it; scale to zero stops the queue-proxy first, then the app, and removes it", async () => {
    const { stack, dispose } = await stackFrom([
      "services:",
      "  - name: side",
      `    hosts: [${HOST}]`,
      `    container: { name: side1, port: 18981, socket: ${engine.socket}, queueProxy: container }`,
    ]);
    try {
      const t0 = Date.now();
      const cold = await request(stack.url, { headers: { host: HOST } });
      const coldMs = Date.now() - t0;
      expect(cold.status).toBe(200);
      expect(cold.body).toBe("hello from a container\n");
      const names = (await engine.podman(["ps", "--format", "{{.Names}} {{.Image}}"])).trim().split("\n");
      expect(names.sort()).toEqual(["side1 localhost/thaw-test/httpd:1", `side1-queue-proxy ${IMAGE}`]);
      // The pod's serving port is the queue-proxy container's: it answers Knative's queue probe itself.
      const address = stack.scaler.pods(rev).find((p) => p.ready)?.address as string;
      const probe = await request(`http://${address}`, {
        headers: { "k-network-probe": "queue", "user-agent": "kube-probe/thaw" },
      });
      expect(probe).toMatchObject({ status: 200, body: "queue" });
      const netns = (
        await engine.podman(["inspect", "--format", "{{.HostConfig.NetworkMode}}", "side1-queue-proxy"])
      ).trim();
      expect(netns).toMatch(/^container:/);
      const stopAt = Date.now();
      await stack.scaler.scale(rev, 0);
      await until(async () => (await engine.podman(["ps", "-q"])).trim() === "", 30_000, "both stopped");
      const events = (
        await engine.podman([
          "events",
          "--stream=false",
          "--since",
          String(Math.floor(stopAt / 1000) - 1),
          "--filter",
          "event=died",
          "--format",
          "{{.Name}}",
        ])
      )
        .trim()
        .split("\n");
      expect(events).toEqual(["side1-queue-proxy", "side1"]);
      const left = (await engine.podman(["ps", "-a", "--format", "{{.Names}}"])).trim();
      expect(left).toBe("side1");
      console.log(`THAW-FIGURES containers sidecar: cold request ${coldMs} ms (app + queue-proxy container)`);
    } finally {
      await dispose();
    }
  }, 120_000);
});
