import { describe, expect, it } from "vitest";
import { numericPort, queueProxyOwnProbe, queueProxyProbeEnv, rewriteForQueueProxy } from "./queue-env.js";
import type { Probe } from "./types.js";

describe("rewriteForQueueProxy", () => {
  it.each([
    {
      name: "named port falls back to the user port",
      probe: { httpGet: { port: "http" } },
      want: { httpGet: { port: 9000, host: "127.0.0.1", scheme: "HTTP" } },
    },
    {
      name: "digits in a string win and become an int",
      probe: { tcpSocket: { port: "7000", host: "10.0.0.1" } },
      want: { tcpSocket: { port: 7000, host: "127.0.0.1" } },
    },
    {
      name: "grpc keeps its own port",
      probe: { grpc: { port: 50051, service: "" } },
      want: { grpc: { port: 50051, service: "" } },
    },
    { name: "grpc without port gets the user port", probe: { grpc: {} }, want: { grpc: { port: 9000 } } },
    {
      name: "exec becomes TCP",
      probe: { exec: { command: ["x"] }, periodSeconds: 3 },
      want: { tcpSocket: { host: "127.0.0.1", port: 9000 }, periodSeconds: 3, timeoutSeconds: 1 },
    },
    {
      name: "scheme kept",
      probe: { httpGet: { scheme: "HTTPS", port: 1 } },
      want: { httpGet: { scheme: "HTTPS", port: 1, host: "127.0.0.1" } },
    },
  ] as { name: string; probe: Probe; want: Probe }[])("$name", ({ probe, want }) => {
    expect(rewriteForQueueProxy(probe, 9000)).toEqual(want);
  });

  it("refuses a probe without a usable port when there is no fallback", () => {
    expect(rewriteForQueueProxy({ tcpSocket: { port: "http" } }, undefined)).toBeUndefined();
  });
});

describe("queueProxyProbeEnv", () => {
  it("builds the array form with sidecars", () => {
    const r = queueProxyProbeEnv({
      serving: { ports: [{ containerPort: 8081 }], readinessProbe: { tcpSocket: {}, successThreshold: 1 } },
      sidecars: [
        { name: "s", readinessProbe: { httpGet: { port: 9091, path: "/ok" }, periodSeconds: 5 } },
        { name: "e", readinessProbe: { exec: {} } },
      ],
      multiContainerProbing: true,
    });
    expect(r).toEqual({
      ok: true,
      value: {
        SERVING_READINESS_PROBE:
          '[{"tcpSocket":{"port":8081,"host":"127.0.0.1"},"successThreshold":1},{"httpGet":{"path":"/ok","port":9091,"host":"127.0.0.1","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":5}]',
        ENABLE_MULTI_CONTAINER_PROBES: "true",
        USER_PORT: "8081",
        QUEUE_SERVING_PORT: "8012",
      },
    });
  });

  it.each([
    { name: "no readiness probe", input: { serving: {} } },
    {
      name: "sidecar without port",
      input: {
        serving: { readinessProbe: { tcpSocket: {} } },
        sidecars: [{ readinessProbe: { tcpSocket: {} } }],
        multiContainerProbing: true,
      },
    },
  ])("reports $name as an issue", ({ input }) => {
    expect(queueProxyProbeEnv(input).ok).toBe(false);
  });
});

describe("queueProxyOwnProbe", () => {
  it("keeps the user's timing and probes the queue port with K-Network-Probe", () => {
    expect(
      queueProxyOwnProbe({ exec: {}, initialDelaySeconds: 2, failureThreshold: 5, periodSeconds: 0 }, 8013),
    ).toEqual({
      httpGet: { port: 8013, httpHeaders: [{ name: "K-Network-Probe", value: "queue" }] },
      initialDelaySeconds: 2,
      failureThreshold: 5,
    });
  });
});

describe("numericPort", () => {
  it.each([
    [8080, 8080],
    ["8080", 8080],
    ["+80", 80],
    [0, undefined],
    ["0", undefined],
    ["http", undefined],
    [undefined, undefined],
  ])("%s -> %s", (input, want) => {
    expect(numericPort(input)).toBe(want);
  });
});
