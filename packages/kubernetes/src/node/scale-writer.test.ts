import { systemClock } from "@thaw/clock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { kubeConfigFor } from "./kube-config.js";
import { ScaleWriter } from "./scale-writer.js";
import { EmulatedApiServer } from "./testing/api-server.js";
import { deployment } from "./testing/builders.js";
import { waitFor } from "./testing/wait.js";

const SCALE = "/apis/apps/v1/namespaces/apps/deployments/hello/scale";

describe("ScaleWriter against the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let writer: ScaleWriter;
  const replicas = () =>
    (api.get("deployments", "apps", "hello")?.spec as { replicas?: number } | undefined)?.replicas;
  const patches = () => api.requests.filter((r) => r.method === "PATCH");

  beforeEach(async () => {
    api = new EmulatedApiServer();
    await api.start();
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 0 }));
    writer = new ScaleWriter({
      kubeConfig: kubeConfigFor({ server: api.url }),
      namespace: "apps",
      deployment: "hello",
      clock: systemClock,
      random: () => 0,
      backoffInitialMs: 30,
      resyncMs: 100,
    });
  });
  afterEach(async () => {
    writer.close();
    await api.close();
  });

  it("a PATCH that fails twice (500, then 409) still reaches the desired count; the error shows, then clears", async () => {
    api.failNext({ method: "PATCH", path: SCALE }, { status: 500 });
    api.failNext({ method: "PATCH", path: SCALE }, { status: 409, message: "the object has been modified" });
    await expect(writer.want(2)).rejects.toMatchObject({ code: "ERR_SCALE_FAILED", status: 500 });
    expect(replicas()).toBe(0);
    expect(writer.status()).toMatchObject({ desired: 2, observed: 0 });
    expect(writer.status().error).toMatch(/PATCH deployments\/hello\/scale in apps: 500/);
    await waitFor(() => replicas() === 2, "two replicas");
    await waitFor(() => writer.status().error === undefined, "the error to clear");
    expect(writer.status()).toMatchObject({ desired: 2, observed: 2, failures: 0 });
    expect(patches().map((r) => r.status)).toEqual([500, 409, 200]);
    // Each PATCH carried the resourceVersion it read: a precondition, not a blind write.
    expect(
      patches().every(
        (r) =>
          typeof (r.body as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ===
          "string",
      ),
    ).toBe(true);
    expect(patches()[2]?.contentType).toBe("application/merge-patch+json");
  });

  it("reads back before writing: no PATCH when the Deployment already has the desired count", async () => {
    await writer.want(0);
    expect(patches()).toHaveLength(0);
    expect(writer.status()).toMatchObject({ desired: 0, observed: 0, error: undefined });
  });

  it("puts the count back when someone else changed it (resync)", async () => {
    await writer.want(3);
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 7 }));
    await waitFor(() => replicas() === 3, "the count put back");
  });

  it("waits at least the server's Retry-After after a 429", async () => {
    api.failNext({ method: "GET", path: SCALE }, { status: 429, retryAfterSeconds: 1 });
    const t0 = Date.now();
    await expect(writer.want(1)).rejects.toMatchObject({ status: 429 });
    await waitFor(() => replicas() === 1, "one replica");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
  });

  it("a disabled writer (a follower) writes nothing", async () => {
    writer.setEnabled(false);
    await expect(writer.want(4)).rejects.toMatchObject({ code: "ERR_NOT_LEADER" });
    await new Promise((r) => setTimeout(r, 200));
    expect(patches()).toHaveLength(0);
    writer.setEnabled(true);
    await waitFor(() => replicas() === 4, "four replicas once enabled");
  });
});

describe("ScaleWriter with an informer's view of the Deployment (emulated API server)", () => {
  let api: EmulatedApiServer;
  let writer: ScaleWriter | undefined;
  let view: { replicas: number | undefined; resourceVersion: string | undefined } | undefined;
  const deploymentNow = () =>
    api.get("deployments", "apps", "hello") as
      | { spec?: { replicas?: number }; metadata: { resourceVersion?: string } }
      | undefined;
  const start = () =>
    new ScaleWriter({
      kubeConfig: kubeConfigFor({ server: api.url }),
      namespace: "apps",
      deployment: "hello",
      clock: systemClock,
      random: () => 0,
      backoffInitialMs: 30,
      resyncMs: 60_000,
      known: () => view,
    });

  beforeEach(async () => {
    api = new EmulatedApiServer();
    await api.start();
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 0 }));
  });
  afterEach(async () => {
    writer?.close();
    await api.close();
  });

  it("scales from zero with one PATCH carrying the view's resourceVersion, no GET", async () => {
    view = { replicas: 0, resourceVersion: deploymentNow()?.metadata.resourceVersion };
    writer = start();
    await writer.want(1);
    expect(deploymentNow()?.spec?.replicas).toBe(1);
    expect(
      api.requests.filter((r) => r.path.endsWith("/scale")).map((r) => `${r.method} ${r.status}`),
    ).toEqual(["PATCH 200"]);
    const patch = api.requests.find((r) => r.method === "PATCH");
    expect(
      (patch?.body as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion,
    ).toBe(view.resourceVersion);
    expect(writer.status()).toMatchObject({ desired: 1, observed: 1, error: undefined });
  });

  it("a stale view gets 409, and the same attempt reads the scale back and writes it", async () => {
    view = { replicas: 0, resourceVersion: deploymentNow()?.metadata.resourceVersion };
    // Someone writes after the informer saw the Deployment: its version is stale now.
    api.apply("deployments", "apps", deployment({ name: "hello", replicas: 0 }));
    writer = start();
    await writer.want(2);
    expect(deploymentNow()?.spec?.replicas).toBe(2);
    expect(
      api.requests.filter((r) => r.path.endsWith("/scale")).map((r) => `${r.method} ${r.status}`),
    ).toEqual(["PATCH 409", "GET 200", "PATCH 200"]);
    expect(writer.status()).toMatchObject({ observed: 2, error: undefined, failures: 0 });
  });

  it("an unchanged count is still read back, never trusted from the view", async () => {
    view = { replicas: 3, resourceVersion: deploymentNow()?.metadata.resourceVersion };
    writer = start();
    await writer.want(3);
    expect(deploymentNow()?.spec?.replicas).toBe(3);
    expect(api.requests.filter((r) => r.path.endsWith("/scale")).map((r) => r.method)).toEqual([
      "GET",
      "PATCH",
    ]);
  });

  it("after its own write, a view that has not caught up is not used (no PATCH bound to fail)", async () => {
    view = { replicas: 0, resourceVersion: deploymentNow()?.metadata.resourceVersion };
    writer = start();
    await writer.want(1);
    // The informer has not seen that write yet: its view still says 0 at the old version.
    await writer.want(2);
    expect(deploymentNow()?.spec?.replicas).toBe(2);
    expect(
      api.requests.filter((r) => r.path.endsWith("/scale")).map((r) => `${r.method} ${r.status}`),
    ).toEqual(["PATCH 200", "GET 200", "PATCH 200"]);
  });
});
