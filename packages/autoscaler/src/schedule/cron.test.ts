import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCron } from "./cron.js";
import { nextFiring, previousFiring } from "./cron-search.js";
import { wallTime } from "./zoned-time.js";

const sorted = (s: ReadonlySet<number>) => [...s].sort((a, b) => a - b);

describe("parseCron", () => {
  const rows: {
    name: string;
    text: string;
    field: "minutes" | "hours" | "daysOfMonth" | "months" | "daysOfWeek";
    want: number[];
  }[] = [
    { name: "a step over everything", text: "*/15 * * * *", field: "minutes", want: [0, 15, 30, 45] },
    { name: "a range with a step", text: "0 8-18/5 * * *", field: "hours", want: [8, 13, 18] },
    {
      name: "a start with a step runs to the end",
      text: "50/4 * * * *",
      field: "minutes",
      want: [50, 54, 58],
    },
    {
      name: "a list of values and ranges",
      text: "0 0 1,15,20-22 * *",
      field: "daysOfMonth",
      want: [1, 15, 20, 21, 22],
    },
    { name: "month names, any case", text: "0 0 1 Jan,mar-MAY *", field: "months", want: [1, 3, 4, 5] },
    { name: "weekday names", text: "0 8 * * mon-fri", field: "daysOfWeek", want: [1, 2, 3, 4, 5] },
    { name: "7 is Sunday", text: "0 8 * * 5-7", field: "daysOfWeek", want: [0, 5, 6] },
    { name: "@daily", text: "@daily", field: "hours", want: [0] },
  ];
  for (const r of rows) {
    it(r.name, () => {
      const c = parseCron(r.text);
      if (!c.ok) throw new Error(c.message);
      expect(sorted(c.value[r.field])).toEqual(r.want);
    });
  }

  const bad: { name: string; text: string; message: RegExp }[] = [
    { name: "four fields", text: "0 8 * *", message: /has 4 fields; needs five fields/ },
    { name: "six fields (seconds)", text: "0 0 8 * * *", message: /has 6 fields/ },
    { name: "minute out of range", text: "60 * * * *", message: /minute field "60": 60 is outside 0-59/ },
    { name: "hour out of range", text: "0 24 * * *", message: /hour field "24": 24 is outside 0-23/ },
    { name: "day 0", text: "0 0 0 * *", message: /day of month field "0": 0 is outside 1-31/ },
    {
      name: "unknown month name",
      text: "0 0 1 foo *",
      message: /month field "foo": "foo" is not a number or a name \(jan…dec\)/,
    },
    { name: "backwards range", text: "0 18-8 * * *", message: /range 18-8 runs backwards/ },
    { name: "step 0", text: "*/0 * * * *", message: /step "0" must be a whole number ≥ 1/ },
    { name: "empty list item", text: "1,,2 * * * *", message: /empty list item/ },
    { name: "unknown shorthand", text: "@sometimes", message: /unknown shorthand/ },
  ];
  for (const r of bad) {
    it(`refuses ${r.name}`, () => {
      const c = parseCron(r.text);
      expect(c.ok).toBe(false);
      if (!c.ok) expect(c.message).toMatch(r.message);
    });
  }

  it("both day fields restricted: either matches (Vixie rule); one restricted: both must", () => {
    expect(
      parseCron("0 0 13 * fri").ok &&
        (parseCron("0 0 13 * fri") as { value: { dayOr: boolean } }).value.dayOr,
    ).toBe(true);
    expect((parseCron("0 0 * * fri") as { value: { dayOr: boolean } }).value.dayOr).toBe(false);
  });
});

/** Does the wall minute of `ms` in `zone` match the cron? (the brute-force oracle) */
function matches(text: string, zone: string, ms: number): boolean {
  const c = parseCron(text);
  if (!c.ok) throw new Error(c.message);
  const w = wallTime(ms, zone);
  const s = c.value;
  const dom = s.daysOfMonth.has(w.day);
  const dow = s.daysOfWeek.has(w.weekday);
  return (
    s.minutes.has(w.minute) &&
    s.hours.has(w.hour) &&
    s.months.has(w.month) &&
    (s.dayOr ? dom || dow : dom && dow)
  );
}

describe("cron search (property: agrees with a minute-by-minute scan)", () => {
  const field = (max: number, min = 0) =>
    fc.oneof(
      fc.constant("*"),
      fc.integer({ min, max }).map(String),
      fc.tuple(fc.integer({ min, max }), fc.integer({ min: 1, max: 7 })).map(([a, s]) => `${a}/${s}`),
      fc
        .tuple(fc.integer({ min, max }), fc.integer({ min, max }))
        .map(([a, b]) => `${Math.min(a, b)}-${Math.max(a, b)}`),
    );
  // Crons that fire at least every few days, so the scan stays short.
  const cron = fc
    .tuple(field(59), field(23), fc.constant("*"), fc.constant("*"), field(6))
    .map((f) => f.join(" "));
  const zone = fc.constantFrom(
    "UTC",
    "Europe/Paris",
    "America/New_York",
    "Australia/Lord_Howe",
    "Asia/Kolkata",
  );
  // 2026 and 2027, which hold every DST transition of those zones.
  const instant = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 11, 31) });

  it("previousFiring is the last matching minute ≤ t; nextFiring the first > t", () => {
    fc.assert(
      fc.property(cron, zone, instant, (text, z, t) => {
        const c = parseCron(text);
        if (!c.ok) return;
        const prev = previousFiring(c.value, z, t);
        const next = nextFiring(c.value, z, t);
        expect(prev).toBeDefined();
        expect(next).toBeDefined();
        const p = prev as number;
        const n = next as number;
        expect(p).toBeLessThanOrEqual(t);
        expect(n).toBeGreaterThan(t);
        expect(matches(text, z, p)).toBe(true);
        // No matching minute strictly between them (scanned when they are at most two days apart, for speed).
        if (n - p > 2 * 86_400_000) return;
        for (let m = Math.floor(p / 60_000) * 60_000 + 60_000; m < n; m += 60_000) {
          if (matches(text, z, m))
            expect.fail(
              `${text} in ${z} matches ${new Date(m).toISOString()} between ${new Date(p).toISOString()} and ${new Date(n).toISOString()}`,
            );
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
