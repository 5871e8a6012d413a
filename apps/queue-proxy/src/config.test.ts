import { describe, expect, it } from "vitest";
import { formatIssues, parseConfig } from "./config.js";

const good: Record<string, string> = {
  CONTAINER_CONCURRENCY: "10",
  QUEUE_SERVING_PORT: "8012",
  QUEUE_SERVING_TLS_PORT: "8112",
  USER_PORT: "8080",
  REVISION_TIMEOUT_SECONDS: "300",
  SERVING_LOGGING_CONFIG: "",
  SERVING_LOGGING_LEVEL: "",
  SERVING_NAMESPACE: "default",
  SERVING_CONFIGURATION: "c",
  SERVING_REVISION: "r",
  SERVING_POD: "p",
  SERVING_POD_IP: "",
};

describe("parseConfig", () => {
  it("reads Knative's variables and Thaw's defaults", () => {
    const parsed = parseConfig(good);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value).toMatchObject({
      containerConcurrency: 10,
      servingPort: 8012,
      userPort: 8080,
      revisionTimeoutSeconds: 300,
      responseStartTimeoutSeconds: 0,
      idleTimeoutSeconds: 0,
      adminPort: 8022,
      metricsPort: 9090,
      userMetricsPort: 9091,
      drainQuietPeriodMs: 30_000,
      requestLog: false,
      requestMetrics: true,
    });
  });

  const rows: { name: string; env: Record<string, string | undefined>; issues: string[] }[] = [
    { name: "missing CC", env: { CONTAINER_CONCURRENCY: undefined }, issues: ["CONTAINER_CONCURRENCY"] },
    { name: "negative CC", env: { CONTAINER_CONCURRENCY: "-1" }, issues: ["CONTAINER_CONCURRENCY"] },
    {
      name: "fractional timeout",
      env: { REVISION_TIMEOUT_SECONDS: "1.5" },
      issues: ["REVISION_TIMEOUT_SECONDS"],
    },
    { name: "user port 0", env: { USER_PORT: "0" }, issues: ["USER_PORT"] },
    { name: "port out of range", env: { QUEUE_SERVING_PORT: "70000" }, issues: ["QUEUE_SERVING_PORT"] },
    {
      name: "absent pod IP (empty is fine, absent is not)",
      env: { SERVING_POD_IP: undefined },
      issues: ["SERVING_POD_IP"],
    },
    { name: "bad boolean", env: { THAW_REQUEST_LOG: "maybe" }, issues: ["THAW_REQUEST_LOG"] },
    {
      name: "several at once, in one pass",
      env: { USER_PORT: undefined, SERVING_REVISION: undefined, REVISION_IDLE_TIMEOUT_SECONDS: "x" },
      issues: ["USER_PORT", "REVISION_IDLE_TIMEOUT_SECONDS", "SERVING_REVISION"],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const env = { ...good, ...row.env };
      for (const [k, v] of Object.entries(row.env)) if (v === undefined) delete env[k];
      const parsed = parseConfig(env);
      expect(parsed.ok).toBe(false);
      if (parsed.ok) return;
      expect(parsed.issues.map((i) => i.variable)).toEqual(row.issues);
      expect(formatIssues(parsed.issues)).toContain(row.issues[0] as string);
    });
  }
});
