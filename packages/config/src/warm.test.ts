import { describe, expect, it } from "vitest";
import { parseConfig } from "./parse.js";

const run = { command: ["node", "server.js"] };
const hosts = ["api.localhost"];

function issuesOf(over: Record<string, unknown>, svc: Record<string, unknown> = {}) {
  const r = parseConfig({ services: [{ name: "api", hosts, run, ...svc }], ...over });
  return r.ok ? [] : r.issues;
}

describe("warm before need: thaw validate", () => {
  it("accepts schedules and a warm rule", () => {
    const r = parseConfig({
      services: [
        {
          name: "api",
          hosts,
          run,
          schedules: [
            {
              name: "office",
              timezone: "Europe/Paris",
              start: "0 8 * * mon-fri",
              end: "0 18 * * mon-fri",
              minScale: 2,
            },
            { start: "0 2 * * *", duration: "1h", minScale: 1 },
          ],
        },
      ],
      warm: [{ path: "/login", services: ["api"], ttlSeconds: 300 }],
    });
    expect(r.ok, JSON.stringify(r)).toBe(true);
  });

  const rows: {
    name: string;
    svc?: Record<string, unknown>;
    top?: Record<string, unknown>;
    path: string;
    message: RegExp;
  }[] = [
    {
      name: "a bad cron",
      svc: { schedules: [{ start: "0 8 * *", duration: "1h", minScale: 1 }] },
      path: "services[0].schedules[0].start",
      message: /has 4 fields/,
    },
    {
      name: "an unknown zone",
      svc: { schedules: [{ start: "0 8 * * *", duration: "1h", minScale: 1, timezone: "Moon/Base" }] },
      path: "services[0].schedules[0].timezone",
      message: /IANA time zone/,
    },
    {
      name: "overlapping windows",
      svc: {
        schedules: [
          { start: "0 8 * * *", duration: "4h", minScale: 1 },
          { start: "0 10 * * *", duration: "1h", minScale: 2 },
        ],
      },
      path: "services[0].schedules[1]",
      message: /overlaps services\[0\]\.schedules\[0\]/,
    },
    {
      name: "min-scale above max-scale",
      svc: {
        autoscaling: { "max-scale": 2 },
        schedules: [{ start: "0 8 * * *", duration: "1h", minScale: 3 }],
      },
      path: "services[0].schedules[0].minScale",
      message: /max-scale \(2\)/,
    },
    {
      name: "an unknown window key",
      svc: { schedules: [{ start: "0 8 * * *", duration: "1h", minScale: 1, replicas: 3 }] },
      path: "services[0].schedules[0].replicas",
      message: /unknown/,
    },
    {
      name: "a TTL out of range",
      top: { warm: [{ path: "/login", services: ["api"], ttlSeconds: 7200 }] },
      path: "warm[0].ttlSeconds",
      message: /<= 3600/,
    },
    {
      name: "a warm path without /",
      top: { warm: [{ path: "login", services: ["api"], ttlSeconds: 60 }] },
      path: "warm[0].path",
      message: /starting with \//,
    },
    {
      name: "a warm rule naming no service",
      top: { warm: [{ path: "/login", services: ["apj"], ttlSeconds: 60 }] },
      path: "warm[0].services[0]",
      message: /no service "apj"/,
    },
  ];
  for (const r of rows) {
    it(`refuses ${r.name}, naming the field`, () => {
      const issues = issuesOf(r.top ?? {}, r.svc ?? {});
      const hit = issues.find((i) => i.path === r.path);
      expect(hit, JSON.stringify(issues)).toBeDefined();
      expect(hit?.message).toMatch(r.message);
    });
  }
});
