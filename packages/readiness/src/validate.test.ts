import { describe, expect, it } from "vitest";
import { validateContainer, validateProbe } from "./validate.js";

const timing = { periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 };

describe("validateContainer (cases beyond the conformance vectors)", () => {
  it.each([
    {
      name: "aggressive default probe",
      container: { readinessProbe: { tcpSocket: {}, successThreshold: 1 } },
      want: null,
    },
    {
      name: "named port equal to the unnamed container port's default name",
      container: { readinessProbe: { ...timing, httpGet: { port: "http" } } },
      want: null,
    },
    {
      name: "named port equal to the declared port name",
      container: {
        ports: [{ containerPort: 8080, name: "h2c" }],
        readinessProbe: { ...timing, tcpSocket: { port: "h2c" } },
      },
      want: null,
    },
    {
      name: "named port different from the declared one",
      container: {
        ports: [{ containerPort: 8080, name: "h2c" }],
        readinessProbe: { ...timing, tcpSocket: { port: "http" } },
      },
      want: "invalid value: http: readinessProbe.tcpSocket.port\nProbe port must match container port",
    },
    {
      name: "numeric port beyond 65535 (the API server refuses it; locally it would fail until the timeout)",
      container: { readinessProbe: { ...timing, httpGet: { port: 99999 } } },
      want: "invalid value: 99999: readinessProbe.httpGet.port\na probe port must be a TCP port, 1 to 65535 (or left out for the container's own port)",
    },
    {
      name: "aggressive probe with failureThreshold",
      container: { readinessProbe: { tcpSocket: {}, successThreshold: 1, failureThreshold: 3 } },
      want: "failureThreshold is disallowed when periodSeconds is zero: readinessProbe.failureThreshold",
    },
    {
      name: "typo in a probe field",
      container: { readinessProbe: { tcpSocket: {}, successThreshold: 1, periodSecond: 2 } },
      want: "must not set the field(s): readinessProbe.periodSecond",
    },
    {
      name: "liveness probes skip the readiness timing rules",
      container: { livenessProbe: { tcpSocket: {}, failureThreshold: 3 } },
      want: null,
    },
  ])("serving: $name", ({ container, want }) => {
    expect(validateContainer(container)).toBe(want);
  });

  it.each([
    {
      name: "port missing",
      container: { readinessProbe: { ...timing, tcpSocket: {} } },
      want: "invalid value: 0: readinessProbe.tcpSocket.port\nProbe port must be specified",
    },
    {
      name: "exec needs no port",
      container: { readinessProbe: { ...timing, exec: { command: ["x"] } } },
      want: null,
    },
  ])("sidecar with multi-container probing: $name", ({ container, want }) => {
    expect(validateContainer(container, { role: "sidecar", multiContainerProbing: true })).toBe(want);
  });

  it("refuses probes on init containers", () => {
    expect(validateContainer({ readinessProbe: {}, lifecycle: {} }, { role: "init" })).toBe(
      "field not allowed in an init container: lifecycle, readinessProbe",
    );
  });

  it("sidecar probe without handler or fields is not reported", () => {
    expect(validateContainer({ livenessProbe: {} }, { role: "sidecar" })).toBeNull();
  });
});

describe("validateProbe", () => {
  it("returns the typed probe when valid", () => {
    expect(validateProbe({ httpGet: { path: "/healthz" }, successThreshold: 1 })).toEqual({
      ok: true,
      value: { httpGet: { path: "/healthz" }, successThreshold: 1 },
    });
  });

  it("returns Knative's messages as issues with paths", () => {
    expect(validateProbe({ httpGet: {}, tcpSocket: {} }, { path: "services[0].readinessProbe" })).toEqual({
      ok: false,
      issues: [
        { path: "services[0].readinessProbe.successThreshold", message: "expected 1 <= 0 <= 2147483647" },
        { path: "services[0].readinessProbe.httpGet", message: "expected exactly one, got both" },
        { path: "services[0].readinessProbe.tcpSocket", message: "expected exactly one, got both" },
      ],
    });
  });
});
