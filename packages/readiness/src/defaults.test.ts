import { describe, expect, it } from "vitest";
import { applyRevisionDefaults } from "./defaults.js";

describe("applyRevisionDefaults (cases beyond the conformance vectors)", () => {
  it("does not change its input", () => {
    const spec = { containers: [{}] };
    applyRevisionDefaults(spec);
    expect(spec).toEqual({ containers: [{}] });
  });

  it("aggressive probes get no timing defaults beyond successThreshold", () => {
    const out = applyRevisionDefaults({ containers: [{ readinessProbe: { httpGet: { path: "/" } } }] });
    expect(out.containers?.[0]?.readinessProbe).toEqual({ httpGet: { path: "/" }, successThreshold: 1 });
  });

  it("gives gRPC probes an empty service", () => {
    const out = applyRevisionDefaults({
      containers: [{ readinessProbe: { grpc: { port: 9 } }, livenessProbe: { grpc: { port: 9 } } }],
    });
    expect(out.containers?.[0]?.readinessProbe?.grpc).toEqual({ port: 9, service: "" });
    expect(out.containers?.[0]?.livenessProbe?.grpc).toEqual({ port: 9, service: "" });
  });

  it("numbers unnamed containers when there are several, avoiding taken names", () => {
    const out = applyRevisionDefaults({
      containers: [{ ports: [{ containerPort: 1 }] }, { name: "user-container-0" }, {}],
      initContainers: [{}],
    });
    expect(out.containers?.map((c) => c.name)).toEqual([
      "user-container-1",
      "user-container-0",
      "user-container-2",
    ]);
    expect(out.initContainers?.map((c) => c.name)).toEqual(["init-container"]);
  });

  it.each([
    {
      name: "config timeouts",
      config: {
        revisionTimeoutSeconds: 600,
        revisionResponseStartTimeoutSeconds: 100,
        revisionIdleTimeoutSeconds: 50,
      },
      want: { timeoutSeconds: 600, responseStartTimeoutSeconds: 100, idleTimeoutSeconds: 50 },
    },
    {
      name: "idle not below timeout is not copied",
      config: { revisionTimeoutSeconds: 60, revisionIdleTimeoutSeconds: 60 },
      want: { timeoutSeconds: 60, responseStartTimeoutSeconds: undefined, idleTimeoutSeconds: undefined },
    },
  ])("revision timeouts: $name", ({ config, want }) => {
    const out = applyRevisionDefaults({ containers: [{}] }, config);
    expect({
      timeoutSeconds: out.timeoutSeconds,
      responseStartTimeoutSeconds: out.responseStartTimeoutSeconds,
      idleTimeoutSeconds: out.idleTimeoutSeconds,
    }).toEqual(want);
  });
});
