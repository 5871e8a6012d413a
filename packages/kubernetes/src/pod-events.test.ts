import { describe, expect, it } from "vitest";
import { type EventLike, PodEventLog, podEventProblem } from "./pod-events.js";
import type { PodLike } from "./pod-status.js";

const warning = (
  pod: string,
  reason: string,
  message: string,
  extra: Partial<EventLike> = {},
): EventLike => ({
  metadata: { name: `${pod}.${reason}`, namespace: "apps" },
  involvedObject: { kind: "Pod", name: pod },
  type: "Warning",
  reason,
  message,
  ...extra,
});

const cond = (type: string) => ({ type, status: "True" });
/** Pods at each step of a start. */
const unscheduled: PodLike = { metadata: { name: "a-1" }, spec: {}, status: {} };
const scheduled: PodLike = { metadata: { name: "a-1" }, spec: { nodeName: "n1" }, status: {} };
const sandbox: PodLike = {
  metadata: { name: "a-1" },
  spec: { nodeName: "n1" },
  status: {
    conditions: [cond("PodReadyToStartContainers")],
    containerStatuses: [{ name: "user-container", state: { waiting: { reason: "ContainerCreating" } } }],
  },
};
const running: PodLike = {
  metadata: { name: "a-1" },
  spec: { nodeName: "n1" },
  status: {
    conditions: [cond("PodReadyToStartContainers")],
    containerStatuses: [
      { name: "user-container", state: { running: {} } },
      { name: "queue-proxy", state: { running: {} } },
    ],
  },
};
const ready: PodLike = {
  ...running,
  status: { ...running.status, conditions: [cond("PodReadyToStartContainers"), cond("Ready")] },
};

const log = (...events: EventLike[]) => {
  const l = new PodEventLog();
  for (const e of events) l.add(e, () => true);
  return l.of("a-1");
};

describe("podEventProblem", () => {
  const rows: { name: string; pod: PodLike; events: EventLike[]; want: unknown }[] = [
    {
      name: "a readiness probe that keeps failing names its container and count (waiting: a slow start passes)",
      pod: running,
      events: [
        warning("a-1", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", {
          involvedObject: { kind: "Pod", name: "a-1", fieldPath: "spec.containers{queue-proxy}" },
          count: 12,
        }),
      ],
      want: {
        severity: "waiting",
        message:
          "Readiness probe failed: HTTP probe failed with statuscode: 503 in container queue-proxy (12 times)",
      },
    },
    {
      name: "a volume whose Secret does not exist is failing",
      pod: scheduled,
      events: [
        warning("a-1", "FailedMount", 'MountVolume.SetUp failed for volume "creds" : secret "db" not found', {
          count: 3,
        }),
      ],
      want: {
        severity: "failing",
        message: 'FailedMount (3 times): MountVolume.SetUp failed for volume "creds" : secret "db" not found',
      },
    },
    {
      name: "a sandbox that cannot be made is waiting (the kubelet retries)",
      pod: scheduled,
      events: [warning("a-1", "FailedCreatePodSandBox", "Failed to create pod sandbox: cni not ready")],
      want: {
        severity: "waiting",
        message: "FailedCreatePodSandBox: Failed to create pod sandbox: cni not ready",
      },
    },
    {
      name: "an image pull the kubelet gave up on is failing",
      pod: sandbox,
      events: [
        warning("a-1", "Failed", 'Failed to pull image "nope:1": pull access denied', {
          involvedObject: { kind: "Pod", name: "a-1", fieldPath: "spec.containers{user-container}" },
        }),
      ],
      want: {
        severity: "failing",
        message: 'Failed in container user-container: Failed to pull image "nope:1": pull access denied',
      },
    },
    {
      name: "the scheduler's reason while no node took the pod",
      pod: unscheduled,
      events: [warning("a-1", "FailedScheduling", "0/1 nodes are available: 1 Insufficient cpu.")],
      want: {
        severity: "waiting",
        message: "FailedScheduling: 0/1 nodes are available: 1 Insufficient cpu.",
      },
    },
    {
      name: "a FailedScheduling of a pod now on a node is history",
      pod: scheduled,
      events: [warning("a-1", "FailedScheduling", "0/1 nodes are available")],
      want: undefined,
    },
    {
      name: "an old pull failure of a pod whose containers now run is history; its probe failure is not",
      pod: running,
      events: [
        warning("a-1", "Failed", "Failed to pull image"),
        warning("a-1", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503"),
      ],
      want: {
        severity: "waiting",
        message: "Readiness probe failed: HTTP probe failed with statuscode: 503",
      },
    },
    {
      name: "the earliest step still failing wins (mount before probe)",
      pod: scheduled,
      events: [
        warning("a-1", "Unhealthy", "Readiness probe failed: x"),
        warning("a-1", "FailedMount", "timed out waiting for the condition"),
      ],
      want: { severity: "waiting", message: "FailedMount: timed out waiting for the condition" },
    },
    {
      name: "nothing once the pod is ready",
      pod: ready,
      events: [warning("a-1", "Unhealthy", "Readiness probe failed: x")],
      want: undefined,
    },
  ];
  for (const r of rows) {
    it(r.name, () => {
      expect(podEventProblem(r.pod, log(...r.events))).toEqual(r.want);
    });
  }
});

describe("PodEventLog", () => {
  it("keeps only Warnings about pods it follows, the latest per pod and reason", () => {
    const l = new PodEventLog();
    const follow = (p: string) => p === "a-1";
    expect(l.add(warning("other-pod", "Unhealthy", "x"), follow)).toBe(false);
    expect(l.add({ ...warning("a-1", "Started", "started"), type: "Normal" }, follow)).toBe(false);
    expect(l.add(warning("a-1", "Pulled", "a Warning of a reason not read"), follow)).toBe(false);
    expect(
      l.add({ ...warning("a-1", "Unhealthy", "x"), involvedObject: { kind: "Node", name: "a-1" } }, follow),
    ).toBe(false);
    for (let i = 1; i <= 50; i++) {
      l.add(warning("a-1", "Unhealthy", `Readiness probe failed: try ${i}`, { count: i }), follow);
    }
    expect(l.size).toBe(1);
    expect(l.of("a-1")).toEqual([
      { reason: "Unhealthy", message: "Readiness probe failed: try 50", count: 50 },
    ]);
    l.prune(() => false);
    expect(l.size).toBe(0);
  });

  it("reset replaces what it held with a fresh list", () => {
    const l = new PodEventLog();
    l.add(warning("a-1", "Unhealthy", "old"), () => true);
    l.reset([warning("a-2", "BackOff", "Back-off restarting failed container")], () => true);
    expect(l.of("a-1")).toEqual([]);
    expect(l.of("a-2").map((e) => e.reason)).toEqual(["BackOff"]);
  });
});

describe("PodEventLog.reset", () => {
  it("keeps the latest event per reason whatever order the list gives them in", () => {
    const l = new PodEventLog();
    l.reset(
      [
        warning("a-1", "Unhealthy", "new", { lastTimestamp: "2026-12-06T10:00:05Z" }),
        warning("a-1", "Unhealthy", "old", { lastTimestamp: new Date("2026-12-06T10:00:01Z") }),
      ],
      () => true,
    );
    expect(l.of("a-1").map((e) => e.message)).toEqual(["new"]);
  });
});
