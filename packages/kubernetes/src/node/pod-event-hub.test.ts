import { systemClock } from "@thaw/clock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PodEvent } from "../pod-events.js";
import { kubeConfigFor } from "./kube-config.js";
import { PodEventHub } from "./pod-event-hub.js";
import { EmulatedApiServer } from "./testing/api-server.js";
import { waitFor } from "./testing/wait.js";

const event = (name: string, pod: string, reason: string, count: number, type = "Warning", kind = "Pod") => ({
  metadata: { name },
  involvedObject: { kind, name: pod, namespace: "apps" },
  type,
  reason,
  message: `${reason} of ${pod}`,
  count,
});

describe("PodEventHub against the emulated Kubernetes API server (no real API server runs here)", () => {
  let api: EmulatedApiServer;
  let hub: PodEventHub;

  beforeEach(async () => {
    api = new EmulatedApiServer({ bookmarkIntervalMs: 0 });
    await api.start();
    hub = new PodEventHub({
      kubeConfig: kubeConfigFor({ server: api.url }),
      clock: systemClock,
      random: () => 0.5,
    });
  });
  afterEach(async () => {
    hub.close();
    await api.close();
  });

  it("asks only for pods' Warnings, holds only the followed pods', and tells each follower its own", async () => {
    api.apply("events", "apps", event("e1", "a-1", "FailedScheduling", 1));
    api.apply("events", "apps", event("e2", "b-1", "FailedScheduling", 1));
    api.apply("events", "apps", event("e3", "a-1", "Scheduled", 1, "Normal"));
    api.apply("events", "apps", event("e4", "a-1", "Unhealthy", 1, "Warning", "Node"));
    const seenA: PodEvent[][] = [];
    const seenB: PodEvent[][] = [];
    const stopA = hub.subscribe(
      "apps",
      (p) => p === "a-1",
      (of) => seenA.push(of("a-1")),
    );
    hub.subscribe(
      "apps",
      (p) => p === "b-2",
      (of) => seenB.push([...of("b-1"), ...of("b-2")]),
    );
    await waitFor(() => api.watches.length === 1, "one watch for the namespace");
    expect(api.requests[0]?.query.get("fieldSelector")).toBe("involvedObject.kind=Pod,type=Warning");
    await waitFor(() => seenA.length > 0, "the list");
    expect(seenA.at(-1)?.map((e) => e.reason)).toEqual(["FailedScheduling"]);
    // A repeat updates the same Event; a Warning about a pod nobody follows is not held.
    api.apply("events", "apps", event("e1", "a-1", "FailedScheduling", 5));
    api.apply("events", "apps", event("e5", "stranger", "FailedMount", 1));
    api.apply("events", "apps", event("e6", "b-2", "Unhealthy", 2));
    await waitFor(() => seenA.at(-1)?.[0]?.count === 5, "the repeat");
    await waitFor(() => seenB.at(-1)?.length === 1, "b-2's Warning");
    expect(seenB.at(-1)?.map((e) => [e.reason, e.count])).toEqual([["Unhealthy", 2]]);
    const informer = hub.informerOf("apps");
    expect([...(informer?.objects.keys() ?? [])].sort()).toEqual(["apps/e1", "apps/e6"]);
    stopA();
    expect(api.watches.length).toBe(1);
  });

  it("the emulator refuses a field selector the real server does not support, as the real one does (400)", async () => {
    const r = await fetch(`${api.url}/api/v1/namespaces/apps/pods?fieldSelector=involvedObject.kind%3DPod`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toBe(
      "field label not supported: involvedObject.kind",
    );
  });
});
