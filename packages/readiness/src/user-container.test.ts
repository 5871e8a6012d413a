import { describe, expect, it } from "vitest";
import { userContainerProbes } from "./user-container.js";
import { validateRevisionBounds } from "./validate-revision.js";

describe("userContainerProbes", () => {
  it.each([
    {
      name: "TCP readiness moves to the queue-proxy",
      container: { readinessProbe: { tcpSocket: {} } },
      want: {},
    },
    {
      name: "exec readiness stays",
      container: { readinessProbe: { exec: { command: ["x"] } } },
      want: { readinessProbe: { exec: { command: ["x"] } } },
    },
    {
      name: "liveness port points at the user port",
      container: { livenessProbe: { httpGet: { port: "http", path: "/live" } } },
      want: { livenessProbe: { httpGet: { port: 8080, path: "/live" } } },
    },
  ])("$name", ({ container, want }) => {
    expect(userContainerProbes(container, 8080)).toEqual(want);
  });

  it("keeps a numeric liveness port with multi-container probing", () => {
    const c = { livenessProbe: { tcpSocket: { port: 9000 } } };
    expect(userContainerProbes(c, 8080, { multiContainerProbing: true }).livenessProbe).toEqual({
      tcpSocket: { port: 9000 },
    });
    expect(userContainerProbes(c, 8080).livenessProbe).toEqual({ tcpSocket: { port: 8080 } });
  });
});

describe("validateRevisionBounds", () => {
  it.each([
    {
      name: "defaults are fine",
      spec: { timeoutSeconds: 300, containerConcurrency: 0 },
      limits: {},
      want: [],
    },
    {
      name: "timeout too long",
      spec: { timeoutSeconds: 601 },
      limits: {},
      want: [{ message: "expected 0 <= 601 <= 600", paths: ["timeoutSeconds"] }],
    },
    {
      name: "concurrency above the limit",
      spec: { containerConcurrency: 1001 },
      limits: {},
      want: [{ message: "expected 0 <= 1001 <= 1000", paths: ["containerConcurrency"] }],
    },
    {
      name: "zero refused when disallowed",
      spec: { containerConcurrency: 0 },
      limits: { allowContainerConcurrencyZero: false },
      want: [{ message: "expected 1 <= 0 <= 1000", paths: ["containerConcurrency"] }],
    },
  ])("$name", ({ spec, limits, want }) => {
    expect(validateRevisionBounds(spec, limits)).toEqual(want);
  });
});
