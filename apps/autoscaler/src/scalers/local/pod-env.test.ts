import { describe, expect, it } from "vitest";
import { type LocalServiceSpec, queueProxyEnv } from "./pod-env.js";

const spec: LocalServiceSpec = {
  namespace: "default",
  name: "hello",
  command: ["node", "server.mjs"],
  env: {},
  portEnv: "PORT",
  containerConcurrency: 2,
  timeoutSeconds: 30,
  drainQuietPeriodMs: 200,
};
const ports = { user: 41001, serving: 41002, servingTls: 41003, admin: 41004, metrics: 41005 };

describe("queueProxyEnv", () => {
  it("passes the picked ports through Knative's variables, and moves thaw-queue-proxy's fixed ones", () => {
    const r = queueProxyEnv(spec, "hello-1", ports);
    expect(r.ok && r.env).toMatchObject({
      QUEUE_SERVING_PORT: "41002",
      QUEUE_SERVING_TLS_PORT: "41003",
      USER_PORT: "41001",
      CONTAINER_CONCURRENCY: "2",
      SERVING_POD: "hello-1",
      THAW_ADMIN_PORT: "41004",
      THAW_METRICS_PORT: "41005",
      THAW_DRAIN_QUIET_PERIOD_MS: "200",
    });
  });

  it("gives a queue-proxy of the user's choosing Knative's environment only", () => {
    const knative = { ...spec, queueProxy: { command: ["queue"], adminPort: 8022, metricsPort: 9090 } };
    const r = queueProxyEnv(knative, "hello-1", { ...ports, admin: 8022, metrics: 9090 });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.env).toMatchObject({
      QUEUE_SERVING_PORT: "41002",
      QUEUE_SERVING_TLS_PORT: "41003",
      USER_PORT: "41001",
    });
    expect(Object.keys(r.env).filter((k) => k.startsWith("THAW_"))).toEqual([]);
  });
});
