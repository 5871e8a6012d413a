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
import { startUp, until, untilReadyPods } from "./support/up-process.js";

const HOST = "side.localhost";
const rev = { namespace: "default", name: "side" };
/** The queue-proxy image `npm run images` tags with the package's version. */
const IMAGE = (() => {
  const qp = COMPONENTS.find((c) => c.name === "queue-proxy");
  if (!qp) throw new Error("tools/images has no queue-proxy component");
  return imageRef(fileURLToPath(new URL("../../../", import.meta.url)), qp);
})();

/** Config lines: service `side` on container side1 with its queue-proxy as a container (`more`: its keys). */
function sideConfig(socket: string, more: string[] = []): string[] {
  return [
    "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 1s }",
    "drain: { quietPeriod: 100ms }",
    "services:",
    "  - name: side",
    `    hosts: [${HOST}]`,
    ...more,
    `    container: { name: side1, port: 18981, socket: ${socket}, queueProxy: container }`,
  ];
}

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
    const { stack, dispose } = await stackFrom(sideConfig(engine.socket));
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
  it("thaw up SIGKILLed with 2 replicas: the next adopts both app containers, gives each a new queue-proxy container in its namespace, and when stopped removes the copy and both", async () => {
    const ps = async (all = false) =>
      (await engine.podman(["ps", ...(all ? ["-a"] : []), "--format", "{{.Names}}"]))
        .trim()
        .split("\n")
        .filter(Boolean)
        .sort();
    const inspect = async (name: string, format: string) =>
      (await engine.podman(["inspect", "--format", format, name])).trim();
    const apps = ["side1", "side1-2"];
    const all = ["side1", "side1-2", "side1-2-queue-proxy", "side1-queue-proxy"];
    const run = await startUp("thaw-sidecar", [
      "listen: 127.0.0.1:0",
      ...sideConfig(engine.socket, ["    autoscaling: { min-scale: 2, max-scale: 2 }"]),
    ]);
    try {
      await untilReadyPods(run.up.url, 2, 60_000);
    } finally {
      // SIGKILL: no orderly stop, so the containers outlive it (the processes that ran them die with it).
      await run.dispose();
    }
    expect(await ps()).toEqual(all);
    // Each queue-proxy is in its own app container's network namespace.
    for (const app of apps) {
      expect(await inspect(`${app}-queue-proxy`, "{{.HostConfig.NetworkMode}}")).toBe(
        `container:${await inspect(app, "{{.Id}}")}`,
      );
    }
    const startedAt = async () => Promise.all(apps.map((a) => inspect(a, "{{.State.StartedAt}}")));
    const appsBefore = await startedAt();
    const qpBefore = await Promise.all(apps.map((a) => inspect(`${a}-queue-proxy`, "{{.Id}}")));

    // min-scale 2: kept at 2 while it is looked at (idle, a loaded machine's checks outlasted the stable
    // window and the copy was gone before its queue-proxy was inspected); thaw up's stop ends them.
    const { stack, dispose } = await stackFrom(
      sideConfig(engine.socket, ["    autoscaling: { min-scale: 2, max-scale: 2 }"]),
    );
    try {
      expect(stack.scaler.pods(rev).length).toBe(2);
      await until(
        () => stack.scaler.pods(rev).filter((p) => p.ready).length === 2,
        30_000,
        "2 adopted, ready",
      );
      expect((await request(stack.url, { headers: { host: HOST } })).status).toBe(200);
      // The app containers were adopted, not restarted; their queue-proxies are this thaw up's own.
      expect(await startedAt()).toEqual(appsBefore);
      expect(await ps()).toEqual(all);
      for (const [i, app] of apps.entries()) {
        const qp = `${app}-queue-proxy`;
        expect(await inspect(qp, "{{.Id}}")).not.toBe(qpBefore[i]);
        expect(await inspect(qp, "{{.HostConfig.NetworkMode}}")).toBe(
          `container:${await inspect(app, "{{.Id}}")}`,
        );
      }
    } finally {
      await dispose();
    }
    // Stopped: Thaw's copy and both queue-proxy containers are removed; the user's side1 is only stopped.
    expect(await ps(true)).toEqual(["side1"]);
    expect(await inspect("side1", "{{.State.Running}}")).toBe("false");
  }, 180_000);

  it("refused, naming the field and the fix: a queue-proxy container for an app off the host network, or an image the engine lacks", async () => {
    await engine.podman([
      "create",
      "--name",
      "bridged",
      "-p",
      "127.0.0.1:18982:8080",
      "localhost/thaw-test/httpd:1",
    ]);
    try {
      const service = (container: string) => [
        "services:",
        "  - name: side",
        `    hosts: [${HOST}]`,
        `    container: { ${container}, socket: ${engine.socket}, queueProxy: container }`,
      ];
      await expect(stackFrom(service("name: bridged, port: 8080"))).rejects.toThrow(
        /services\[0\]\.container\.queueProxy: container bridged is on network .*create the container with --network host .*or use queueProxy: process/,
      );
      await expect(
        stackFrom(service("name: side1, port: 18981, queueProxyImage: localhost/thaw/none:1")),
      ).rejects.toThrow(
        /services\[0\]\.container\.queueProxyImage: the engine at .* has no image localhost\/thaw\/none:1: build Thaw's with npm run images/,
      );
    } finally {
      await engine.podman(["rm", "-f", "bridged"]);
    }
  }, 60_000);
});
