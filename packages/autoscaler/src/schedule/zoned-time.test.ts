import { describe, expect, it } from "vitest";
import { parseCron } from "./cron.js";
import { nextFiring, previousFiring } from "./cron-search.js";
import { instantOf, isTimeZone, wallTime } from "./zoned-time.js";

function cron(text: string) {
  const c = parseCron(text);
  if (!c.ok) throw new Error(c.message);
  return c.value;
}

describe("zoned time through Intl", () => {
  it("knows IANA zones and refuses made-up ones", () => {
    expect(isTimeZone("Europe/Paris")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });

  it("reads the wall clock with the zone's offset, summer and winter", () => {
    expect(wallTime(Date.UTC(2026, 6, 1, 6, 0), "Europe/Paris")).toMatchObject({
      hour: 8,
      minute: 0,
      weekday: 3,
    });
    expect(wallTime(Date.UTC(2026, 0, 1, 7, 0), "Europe/Paris")).toMatchObject({
      hour: 8,
      minute: 0,
      day: 1,
    });
  });

  const rows = [
    // Paris springs forward on 29 March 2026 at 02:00 → 03:00 (UTC 01:00).
    {
      name: "spring-forward gap: 02:30 maps to the first minute after it",
      args: [2026, 3, 29, 2, 30],
      want: Date.UTC(2026, 2, 29, 1, 0),
    },
    { name: "just before the gap", args: [2026, 3, 29, 1, 59], want: Date.UTC(2026, 2, 29, 0, 59) },
    { name: "just after the gap", args: [2026, 3, 29, 3, 0], want: Date.UTC(2026, 2, 29, 1, 0) },
    // Paris falls back on 25 October 2026 at 03:00 → 02:00 (UTC 01:00): 02:30 happens twice.
    {
      name: "fall-back repeat: 02:30 is the first occurrence (summer time)",
      args: [2026, 10, 25, 2, 30],
      want: Date.UTC(2026, 9, 25, 0, 30),
    },
    { name: "after the repeat", args: [2026, 10, 25, 3, 30], want: Date.UTC(2026, 9, 25, 2, 30) },
  ] as const;
  for (const r of rows) {
    it(r.name, () => {
      const [y, mo, d, h, mi] = r.args;
      expect(new Date(instantOf(y, mo, d, h, mi, "Europe/Paris")).toISOString()).toBe(
        new Date(r.want).toISOString(),
      );
    });
  }

  it("a daily 08:00 window stays at 08:00 local across both transitions (UTC hour moves)", () => {
    const c = cron("0 8 * * *");
    expect(new Date(nextFiring(c, "Europe/Paris", Date.UTC(2026, 2, 28, 12)) as number).toISOString()).toBe(
      "2026-03-29T06:00:00.000Z",
    );
    expect(new Date(nextFiring(c, "Europe/Paris", Date.UTC(2026, 2, 27, 12)) as number).toISOString()).toBe(
      "2026-03-28T07:00:00.000Z",
    );
    expect(new Date(nextFiring(c, "Europe/Paris", Date.UTC(2026, 9, 24, 12)) as number).toISOString()).toBe(
      "2026-10-25T07:00:00.000Z",
    );
  });

  it("a 02:30 cron fires once on each transition night: right after the gap, and at the first 02:30 of the repeat", () => {
    const c = cron("30 2 * * *");
    expect(new Date(nextFiring(c, "Europe/Paris", Date.UTC(2026, 2, 28, 12)) as number).toISOString()).toBe(
      "2026-03-29T01:00:00.000Z",
    );
    const first = nextFiring(c, "Europe/Paris", Date.UTC(2026, 9, 24, 12)) as number;
    expect(new Date(first).toISOString()).toBe("2026-10-25T00:30:00.000Z");
    // The second 02:30 (UTC 01:30) is not another firing: the next is the following night.
    expect(new Date(nextFiring(c, "Europe/Paris", first) as number).toISOString()).toBe(
      "2026-10-26T01:30:00.000Z",
    );
    // From inside the repeated hour, the last firing is the first 02:30.
    expect(previousFiring(c, "Europe/Paris", Date.UTC(2026, 9, 25, 1, 10))).toBe(first);
  });

  it("a date that never comes gives no firing", () => {
    expect(nextFiring(cron("0 0 30 2 *"), "UTC", 0)).toBeUndefined();
  });
});
