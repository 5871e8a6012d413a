import { type CronSpec, cronMatchesDay } from "./cron.js";
import { instantOf, wallTime, zoneOffset } from "./zoned-time.js";

/** How far a search walks: 8 years covers 29 February and every weekday/date combination. */
const MAX_DAYS = 366 * 8;
const DAY = 86_400_000;
/** Start a walk this far beyond `t`: a repeated (clocks set back) hour can put `t`'s wall time behind a firing. */
const SLACK = 3 * 3_600_000;

function sorted(set: ReadonlySet<number>, descending: boolean): number[] {
  return [...set].sort((a, b) => (descending ? b - a : a - b));
}

/** Civil date `n` days after (y, m, d), with its weekday. */
function shiftDay(y: number, m: number, d: number, n: number) {
  const u = new Date(Date.UTC(y, m - 1, d) + n * DAY);
  return {
    year: u.getUTCFullYear(),
    month: u.getUTCMonth() + 1,
    day: u.getUTCDate(),
    weekday: u.getUTCDay(),
  };
}

/**
 * Walks wall-clock minutes day by day from near `t` (backwards or forwards) and returns the first firing
 * instant `accept` takes, or undefined when the cron fires on no day within 8 years.
 */
function walk(spec: CronSpec, zone: string, t: number, backwards: boolean, accept: (ms: number) => boolean) {
  const from = wallTime(backwards ? t + SLACK : t - SLACK, zone);
  const hours = sorted(spec.hours, backwards);
  const minutes = sorted(spec.minutes, backwards);
  const dir = backwards ? -1 : 1;
  // With no offset change within the slack of t (nearly always), minutes near t convert by arithmetic alone.
  const off = zoneOffset(t, zone);
  const steady = zoneOffset(t - SLACK, zone) === off && zoneOffset(t + SLACK, zone) === off;
  for (let n = 0; n < MAX_DAYS; n++) {
    const day = shiftDay(from.year, from.month, from.day, n * dir);
    if (!cronMatchesDay(spec, day.month, day.day, day.weekday)) continue;
    for (const h of hours) {
      if (n === 0 && (backwards ? h > from.hour : h < from.hour)) continue;
      for (const m of minutes) {
        if (n === 0 && h === from.hour && (backwards ? m > from.minute : m < from.minute)) continue;
        const guess = Date.UTC(day.year, day.month - 1, day.day, h, m) - off;
        const near = steady && Math.abs(guess - t) <= SLACK;
        const at = near ? guess : instantOf(day.year, day.month, day.day, h, m, zone);
        if (accept(at)) return at;
      }
    }
  }
  return undefined;
}

/** The latest instant ≤ `t` at which the cron fires in `zone`; undefined if none within 8 years. */
export function previousFiring(spec: CronSpec, zone: string, t: number): number | undefined {
  return walk(spec, zone, t, true, (at) => at <= t);
}

/** The first instant > `t` at which the cron fires in `zone`; undefined if none within 8 years. */
export function nextFiring(spec: CronSpec, zone: string, t: number): number | undefined {
  return walk(spec, zone, t, false, (at) => at > t);
}
