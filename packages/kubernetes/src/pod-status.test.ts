import { describe, expect, it } from "vitest";
import { type PodLike, podPhasesReached, podProblem } from "./pod-status.js";

const pod = (status: PodLike["status"], nodeName?: string): PodLike => ({
  metadata: { name: "a-1" },
  spec: nodeName ? { nodeName } : {},
  status,
});

describe("podProblem", () => {
  it("names the exit code and the last output of an app that exited before it was ready", () => {
    const p = pod({
      conditions: [{ type: "Ready", status: "False" }],
      containerStatuses: [
        {
          name: "user-container",
          restartCount: 2,
          state: {
            waiting: { reason: "CrashLoopBackOff", message: "back-off 20s restarting failed container" },
          },
          lastState: { terminated: { exitCode: 3, reason: "Error", message: "starting\nboom\n" } },
        },
        { name: "queue-proxy", restartCount: 0, state: { running: {} } },
      ],
    });
    expect(podProblem(p)).toEqual({
      severity: "failing",
      message:
        "app exited with code 3 before it was ready; last output: starting | boom (crash loop: restarted 2 times)",
    });
  });

  it("says a command does not exist (runc's StartError)", () => {
    const p = pod({
      containerStatuses: [
        {
          name: "user-container",
          restartCount: 0,
          state: {
            terminated: {
              exitCode: 128,
              reason: "StartError",
              message:
                'failed to create containerd task: exec: "no-such-binary-xyz": executable file not found in $PATH: unknown',
            },
          },
        },
      ],
    });
    expect(podProblem(p)?.message).toMatch(
      /^no such command in container user-container: .*no-such-binary-xyz/,
    );
    expect(podProblem(p)?.severity).toBe("failing");
  });

  it("says no node can take a pod the scheduler left unscheduled (a wait may fix it)", () => {
    const p = pod({
      conditions: [
        {
          type: "PodScheduled",
          status: "False",
          reason: "Unschedulable",
          message: "0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available.",
        },
      ],
    });
    expect(podProblem(p)).toEqual({
      severity: "waiting",
      message:
        "no node can take the pod (Unschedulable): 0/1 nodes are available: 1 Insufficient memory. preemption: 0/1 nodes are available.",
    });
    // Still being placed (no reason yet): nothing known to be wrong.
    expect(podProblem(pod({ conditions: [{ type: "PodScheduled", status: "False" }] }))).toBeUndefined();
  });

  it("knows nothing wrong of a pod that is starting, ready, or going away", () => {
    expect(podProblem(pod({ containerStatuses: [{ name: "c", state: { running: {} } }] }))).toBeUndefined();
    expect(
      podProblem(
        pod({
          conditions: [{ type: "Ready", status: "True" }],
          containerStatuses: [{ name: "c", restartCount: 1, lastState: { terminated: { exitCode: 1 } } }],
        }),
      ),
    ).toBeUndefined();
    const leaving = pod({ containerStatuses: [{ name: "c", state: { terminated: { exitCode: 0 } } }] });
    leaving.metadata = { name: "x", deletionTimestamp: "2026-01-01T00:00:00Z" };
    expect(podProblem(leaving)).toBeUndefined();
  });
});

describe("podPhasesReached", () => {
  it("follows the pod from created to ready", () => {
    expect(podPhasesReached(pod({}))).toEqual(["podCreated"]);
    expect(podPhasesReached(pod({}, "node1"))).toEqual(["podCreated", "podScheduled"]);
    const started = pod(
      {
        conditions: [{ type: "PodReadyToStartContainers", status: "True" }],
        containerStatuses: [
          { name: "a", state: { running: {} } },
          { name: "b", state: { running: {} } },
        ],
      },
      "node1",
    );
    expect(podPhasesReached(started)).toEqual(["podCreated", "podScheduled", "sandboxReady", "podStarted"]);
    started.status?.conditions?.push({ type: "Ready", status: "True" });
    expect(podPhasesReached(started)).toContain("firstReady");
  });
});
