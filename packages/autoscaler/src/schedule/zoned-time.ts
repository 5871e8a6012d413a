/** A wall-clock minute in some time zone (month 1-12, weekday 0 = Sunday). */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  weekday: number;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

const formats = new Map<string, Intl.DateTimeFormat>();

function formatFor(zone: string): Intl.DateTimeFormat {
  let f = formats.get(zone);
  if (!f) {
    // Throws RangeError for a zone the runtime's time-zone data does not know.
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
    });
    formats.set(zone, f);
  }
  return f;
}

/** Is `zone` an IANA time-zone name this runtime knows (e.g. Europe/Paris, UTC)? */
export function isTimeZone(zone: string): boolean {
  if (zone === "") return false;
  try {
    formatFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock minute at instant `ms` in `zone`. */
export function wallTime(ms: number, zone: string): WallTime {
  const parts = formatFor(zone).formatToParts(new Date(ms));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const year = get("year");
  const month = get("month");
  const day = get("day");
  return {
    year,
    month,
    day,
    hour: get("hour"),
    minute: get("minute"),
    weekday: new Date(Date.UTC(year, month - 1, day)).getUTCDay(),
  };
}

/** The zone's offset from UTC at instant `ms`, in ms (east positive), to the minute. */
export function zoneOffset(ms: number, zone: string): number {
  const w = wallTime(ms, zone);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute);
  return asUtc - Math.floor(ms / 60_000) * 60_000;
}

/**
 * The instant a wall-clock minute happens in `zone`. A minute that occurs twice (clocks set back) is taken
 * the first time; a minute that never occurs (clocks set forward) maps to the first instant after the gap,
 * as cron daemons run what the gap skipped right after it. Either way later wall minutes never map to
 * earlier instants, which the cron search relies on.
 */
export function instantOf(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  zone: string,
): number {
  const local = Date.UTC(year, month - 1, day, hour, minute);
  const guess = local - zoneOffset(local, zone);
  // Offsets a few hours either side bracket any transition near this minute.
  const before = zoneOffset(guess - 3 * HOUR, zone);
  const after = zoneOffset(guess + 3 * HOUR, zone);
  const same = (t: number) => {
    const w = wallTime(t, zone);
    return w.year === year && w.month === month && w.day === day && w.hour === hour && w.minute === minute;
  };
  // The larger offset gives the earlier instant: the first of two occurrences.
  for (const off of before >= after ? [before, after] : [after, before])
    if (same(local - off)) return local - off;
  // In a gap: the transition lies between the two readings; find its minute by halving.
  let lo = local - after;
  let hi = local - before;
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (zoneOffset(mid, zone) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}
