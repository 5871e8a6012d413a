import { describe, expect, it } from "vitest";
import { DEFAULT_AUTOSCALER_CONFIG } from "../config.js";
import { scaleSettingsFor } from "../scale-settings.js";
import { activeWindow, parseSchedules, type ScheduleWindow } from "./schedule.js";
import { scheduleOverlapIssues } from "./schedule-overlap.js";
import { withWarmFloor } from "./warm-floor.js";

function windows(raw: unknown, maxScale = 0): ScheduleWindow[] {
  const r = parseSchedules(raw, "schedules", maxScale);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value;
}

describe("parseSchedules", () => {
  const bad: { name: string; raw: unknown; maxScale?: number; path: string; message: RegExp }[] = [
    {
      name: "a bad cron",
      raw: [{ start: "0 25 * * *", duration: "1h", minScale: 1 }],
      path: "schedules[0].start",
      message: /hour field "25"/,
    },
    {
      name: "an unknown zone",
      raw: [{ start: "0 8 * * *", duration: "1h", minScale: 1, timezone: "Europe/Atlantis" }],
      path: "schedules[0].timezone",
      message: /not an IANA time zone/,
    },
    {
      name: "both end and duration",
      raw: [{ start: "0 8 * * *", end: "0 9 * * *", duration: "1h", minScale: 1 }],
      path: "schedules[0].duration",
      message: /exactly one of end/,
    },
    {
      name: "neither end nor duration",
      raw: [{ start: "0 8 * * *", minScale: 1 }],
      path: "schedules[0].end",
      message: /exactly one of end/,
    },
    {
      name: "min-scale 0",
      raw: [{ start: "0 8 * * *", duration: "1h", minScale: 0 }],
      path: "schedules[0].minScale",
      message: /from 1 to 1000/,
    },
    {
      name: "min-scale above max-scale",
      raw: [{ start: "0 8 * * *", duration: "1h", minScale: 4 }],
      maxScale: 3,
      path: "schedules[0].minScale",
      message: /max-scale \(3\)/,
    },
    {
      name: "a duration under a minute",
      raw: [{ start: "0 8 * * *", duration: "10s", minScale: 1 }],
      path: "schedules[0].duration",
      message: /at least 1m/,
    },
    {
      name: "start equal to end",
      raw: [{ start: "0 8 * * *", end: "0 8 * * *", minScale: 1 }],
      path: "schedules[0].end",
      message: /same cron as start/,
    },
    {
      name: "a date that never comes",
      raw: [{ start: "0 8 31 2 *", duration: "1h", minScale: 1 }],
      path: "schedules[0].start",
      message: /matches no date/,
    },
    {
      name: "a number as cron",
      raw: [{ start: 8, duration: "1h", minScale: 1 }],
      path: "schedules[0].start",
      message: /cron expression in quotes/,
    },
  ];
  for (const r of bad) {
    it(`refuses ${r.name}, naming the field`, () => {
      const res = parseSchedules(r.raw, "schedules", r.maxScale ?? 0);
      expect(res.ok).toBe(false);
      if (res.ok) return;
      const hit = res.issues.find((i) => i.path === r.path);
      expect(hit, JSON.stringify(res.issues)).toBeDefined();
      expect(hit?.message).toMatch(r.message);
    });
  }
});

describe("activeWindow", () => {
  const office = windows([
    {
      name: "office",
      timezone: "Europe/Paris",
      start: "0 8 * * mon-fri",
      end: "0 18 * * mon-fri",
      minScale: 2,
    },
    { name: "batch", timezone: "UTC", start: "30 2 * * *", duration: "45m", minScale: 3 },
  ]);
  const rows = [
    {
      name: "a Monday at 09:00 Paris (08:00 UTC, winter)",
      t: Date.UTC(2026, 11, 7, 8, 0),
      want: "office",
      min: 2,
    },
    { name: "a Monday at 07:59 Paris: not yet", t: Date.UTC(2026, 11, 7, 6, 59), want: undefined },
    { name: "the Monday at 18:00 Paris: closed", t: Date.UTC(2026, 11, 7, 17, 0), want: undefined },
    { name: "a Saturday at noon", t: Date.UTC(2026, 11, 5, 11, 0), want: undefined },
    { name: "the batch window at 03:00 UTC", t: Date.UTC(2026, 11, 5, 3, 0), want: "batch", min: 3 },
    { name: "after the batch window's 45 minutes", t: Date.UTC(2026, 11, 5, 3, 15), want: undefined },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const a = activeWindow(office, r.t);
      expect(a?.name).toBe(r.want);
      if (r.min !== undefined) expect(a?.minScale).toBe(r.min);
    });
  }
  it("reports when the open window started and ends", () => {
    const a = activeWindow(office, Date.UTC(2026, 11, 7, 8, 0));
    expect(new Date(a?.sinceMs as number).toISOString()).toBe("2026-12-07T07:00:00.000Z");
    expect(new Date(a?.untilMs as number).toISOString()).toBe("2026-12-07T17:00:00.000Z");
  });
});

describe("scheduleOverlapIssues", () => {
  const from = Date.UTC(2026, 11, 5);
  it("names two windows that are open at once", () => {
    const w = windows([
      { start: "0 8 * * mon-fri", end: "0 12 * * mon-fri", minScale: 1 },
      { start: "0 11 * * wed", duration: "3h", minScale: 2 },
    ]);
    const issues = scheduleOverlapIssues(w, "services[0].schedules", from);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe("services[0].schedules[1]");
    expect(issues[0]?.message).toMatch(
      /overlaps services\[0\]\.schedules\[0\] \(both open at 2026-12-09T11:00:00.000Z\)/,
    );
  });
  it("lets back-to-back windows be", () => {
    const w = windows([
      { start: "0 8 * * *", end: "0 12 * * *", minScale: 1 },
      { start: "0 12 * * *", duration: "2h", minScale: 2 },
    ]);
    expect(scheduleOverlapIssues(w, "s", from)).toEqual([]);
  });
});

describe("withWarmFloor", () => {
  const base = scaleSettingsFor({ ...DEFAULT_AUTOSCALER_CONFIG, minScale: 1, maxScale: 4 }, {});
  it("effective min-scale is max(configured, floor), capped by max-scale", () => {
    expect(withWarmFloor(base, 0).minScale).toBe(1);
    expect(withWarmFloor(base, 3).minScale).toBe(3);
    expect(withWarmFloor(base, 9).minScale).toBe(4);
    expect(withWarmFloor(base, 3).stableWindowMs).toBe(base.stableWindowMs);
  });
});
