import { describe, expect, it } from "vitest";
import { encodeStat } from "./stat-encoding.js";
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

describe("encodeStat", () => {
  it.each([
    { name: "only the pod name", stat: { podName: "ab" }, bytes: [0x0a, 2, 0x61, 0x62] },
    { name: "a double field", stat: { requestCount: 1 }, bytes: [0x21, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f] },
    { name: "timestamp as varint", stat: { timestamp: 300 }, bytes: [0x38, 0xac, 0x02] },
  ])("$name", ({ stat, bytes }) => {
    const full = {
      podName: "",
      averageConcurrentRequests: 0,
      averageProxiedConcurrentRequests: 0,
      requestCount: 0,
      proxiedRequestCount: 0,
      processUptime: 0,
      timestamp: 0,
      ...stat,
    };
    expect([...encodeStat(full)]).toEqual(bytes);
  });
});
