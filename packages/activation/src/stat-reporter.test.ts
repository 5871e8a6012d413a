import { describe, expect, it } from "vitest";
import { StatReporter } from "./stat-reporter.js";

describe("StatReporter", () => {
  it("divides counts by the period and measures uptime", () => {
    const r = new StatReporter("pod", 2000, 1000);
    expect(r.stat.podName).toBe("pod");
    r.report(
      { averageConcurrency: 1.5, averageProxiedConcurrency: 0, requestCount: 10, proxiedRequestCount: 4 },
      6000,
    );
    expect(r.stat).toMatchObject({
      requestCount: 5,
      proxiedRequestCount: 2,
      processUptime: 5,
      averageConcurrentRequests: 1.5,
    });
  });
});
