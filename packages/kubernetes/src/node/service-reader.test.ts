import { systemClock } from "@thaw/clock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { clusterIPAddress } from "../service-address.js";
import type { ServiceLike } from "../types.js";
import type { ApiFailure } from "./api-error.js";
import { kubeConfigFor } from "./kube-config.js";
import { ServiceReader } from "./service-reader.js";
import { EmulatedApiServer } from "./testing/api-server.js";
import { waitFor } from "./testing/wait.js";

const PATH = "/api/v1/namespaces/apps/services";

describe("ServiceReader against the emulated API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let reader: ServiceReader | undefined;
  beforeEach(async () => {
    api = new EmulatedApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
  });
  afterEach(async () => {
    reader?.stop();
    await api.close();
  });

  function follow(onForbidden?: (f: ApiFailure) => void) {
    const seen: (string | undefined)[] = [];
    reader = new ServiceReader({
      kubeConfig: kubeConfigFor({ server: api.url }),
      namespace: "apps",
      name: "hello-private",
      clock: systemClock,
      random: () => 0.5,
      backoffInitialMs: 20,
      onChange: (s: ServiceLike | undefined) => seen.push(clusterIPAddress(s, "http")),
      ...(onForbidden ? { onForbidden } : {}),
    });
    reader.start();
    return seen;
  }

  it("follows one Service by name: its ClusterIP on the named port, a change, and its deletion", async () => {
    const svc = (ip: string) => ({
      metadata: { name: "hello-private" },
      spec: { clusterIP: ip, ports: [{ name: "http", port: 80, protocol: "TCP" }] },
    });
    api.apply("services", "apps", { metadata: { name: "other" }, spec: { clusterIP: "10.96.0.1" } });
    api.apply("services", "apps", svc("10.96.0.12"));
    const seen = follow();
    await waitFor(() => seen.at(-1) === "10.96.0.12:80", "the first list");
    await waitFor(() => api.watches.length >= 1, "the watch");
    api.apply("services", "apps", svc("10.96.0.13"));
    await waitFor(() => seen.at(-1) === "10.96.0.13:80", "the change");
    api.remove("services", "apps", "hello-private");
    await waitFor(() => seen.length > 0 && seen.at(-1) === undefined, "the deletion");
  });

  it("a 403 on the list is reported once and the reader stops (no retry loop)", async () => {
    api.failNext({ path: PATH, watch: false }, { status: 403, count: 100 });
    const forbidden: ApiFailure[] = [];
    follow((f) => forbidden.push(f));
    await waitFor(() => forbidden.length === 1, "the 403");
    const lists = () => api.requests.filter((r) => r.path === PATH).length;
    const before = lists();
    // Backoff starts at 20 ms: a reader still retrying would list several times in 300 ms.
    await new Promise((r) => setTimeout(r, 300));
    expect(forbidden.map((f) => f.status)).toEqual([403]);
    expect(lists()).toBe(before);
  });
});
