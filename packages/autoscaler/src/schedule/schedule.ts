import { parseGoDuration } from "../duration.js";
import type { Issue, ParseResult } from "../issues.js";
import { type CronSpec, parseCron } from "./cron.js";
import { nextFiring, previousFiring } from "./cron-search.js";
import { isTimeZone } from "./zoned-time.js";

/** One time window of a service with its own min-scale: from each `start` firing until `end` fires or `durationMs` passes. */
export interface ScheduleWindow {
  /** The window's name as configured, else `schedules[i]`. */
  name: string;
  /** IANA time zone the crons are read in. */
  timezone: string;
  start: CronSpec;
  end?: CronSpec;
  durationMs?: number;
  minScale: number;
}

/** The window in force at some instant, as the dashboard and the status API show it. */
export interface ActiveWindow {
  name: string;
  minScale: number;
  /** When this window last started (ms since the epoch). */
  sinceMs: number;
  /** When it will end, if it ends within the search horizon. */
  untilMs: number | undefined;
}

/** Largest min-scale a window may ask for when the service sets no max-scale. */
export const SCHEDULE_MAX_MIN_SCALE = 1000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Reads a service's `schedules` list. Each window needs `start` (a five-field cron), exactly one of `end`
 * (a cron) or `duration` (a Go duration such as 10h), `minScale` (1 up to the service's max-scale), and may
 * name a `timezone` (IANA, default UTC). Issue paths are `<path>[j].<key>`.
 */
export function parseSchedules(raw: unknown, path: string, maxScale = 0): ParseResult<ScheduleWindow[]> {
  if (raw === undefined) return { ok: true, value: [] };
  if (!Array.isArray(raw)) {
    return {
      ok: false,
      issues: [
        {
          path,
          message: "must be a list of windows, e.g. [{start: 0 8 * * mon-fri, duration: 10h, minScale: 1}]",
        },
      ],
    };
  }
  const issues: Issue[] = [];
  const out: ScheduleWindow[] = [];
  raw.forEach((w, j) => {
    const at = (k: string) => `${path}[${j}]${k ? `.${k}` : ""}`;
    if (!isRecord(w)) {
      issues.push({ path: at(""), message: "must be a mapping with start, end or duration, and minScale" });
      return;
    }
    // Unknown keys are the schema's to report (thaw validate names the nearest known one).
    const before = issues.length;
    const cron = (k: "start" | "end"): CronSpec | undefined => {
      const v = w[k];
      if (v === undefined) return undefined;
      if (typeof v !== "string") {
        issues.push({ path: at(k), message: 'must be a cron expression in quotes, e.g. "0 8 * * mon-fri"' });
        return undefined;
      }
      const c = parseCron(v);
      if (!c.ok) issues.push({ path: at(k), message: c.message });
      return c.ok ? c.value : undefined;
    };
    const zone = w.timezone ?? "UTC";
    if (typeof zone !== "string" || !isTimeZone(zone)) {
      issues.push({
        path: at("timezone"),
        message: `${JSON.stringify(zone)} is not an IANA time zone this runtime knows; use a name such as Europe/Paris, America/New_York or UTC`,
      });
    }
    if (w.start === undefined)
      issues.push({
        path: at("start"),
        message: 'is required: the cron at which the window opens, e.g. "0 8 * * mon-fri"',
      });
    const start = cron("start");
    const end = cron("end");
    let durationMs: number | undefined;
    if (w.duration !== undefined) {
      durationMs = typeof w.duration === "string" ? parseGoDuration(w.duration) : undefined;
      if (durationMs === undefined || durationMs < 60_000) {
        issues.push({
          path: at("duration"),
          message: "must be a duration of at least 1m, such as 90m or 10h",
        });
      }
    }
    if ((w.end === undefined) === (w.duration === undefined)) {
      issues.push({
        path: at(w.end === undefined ? "end" : "duration"),
        message: "give exactly one of end (a cron) or duration (e.g. 10h)",
      });
    }
    if (start && end && start.text === end.text) {
      issues.push({
        path: at("end"),
        message:
          "is the same cron as start, so the window would never open; give a different end or a duration",
      });
    }
    const cap = maxScale > 0 ? maxScale : SCHEDULE_MAX_MIN_SCALE;
    const ms = w.minScale;
    if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 1 || ms > cap) {
      const limit = maxScale > 0 ? `the service's max-scale (${maxScale})` : String(SCHEDULE_MAX_MIN_SCALE);
      issues.push({
        path: at("minScale"),
        message: `must be a whole number from 1 to ${limit}: the pods kept ready during the window`,
      });
    }
    const name = w.name === undefined ? `schedules[${j}]` : w.name;
    if (typeof name !== "string" || name === "")
      issues.push({ path: at("name"), message: "must be a non-empty string" });
    if (issues.length > before || !start || typeof zone !== "string") return;
    for (const [k, c] of [
      ["start", start],
      ["end", end],
    ] as const) {
      if (c && nextFiring(c, zone, 0) === undefined && previousFiring(c, zone, 0) === undefined) {
        issues.push({
          path: at(k),
          message: `${JSON.stringify(c.text)} matches no date (e.g. 31 February); check the day and month fields`,
        });
      }
    }
    if (issues.length > before) return;
    const win: ScheduleWindow = { name: name as string, timezone: zone, start, minScale: ms as number };
    if (end) win.end = end;
    if (durationMs !== undefined) win.durationMs = durationMs;
    out.push(win);
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}

/** The window's state at `t`: the instant it last opened, if it is open now. */
function openedAt(w: ScheduleWindow, t: number): number | undefined {
  const s = previousFiring(w.start, w.timezone, t);
  if (s === undefined) return undefined;
  if (w.end) {
    const e = previousFiring(w.end, w.timezone, t);
    return e === undefined || e < s ? s : undefined;
  }
  return t < s + (w.durationMs ?? 0) ? s : undefined;
}

/** The window in force at `t` (the largest min-scale if several are), or undefined. */
export function activeWindow(windows: readonly ScheduleWindow[], t: number): ActiveWindow | undefined {
  let best: ActiveWindow | undefined;
  for (const w of windows) {
    const since = openedAt(w, t);
    if (since === undefined || (best && best.minScale >= w.minScale)) continue;
    const untilMs = w.end ? nextFiring(w.end, w.timezone, t) : since + (w.durationMs ?? 0);
    best = { name: w.name, minScale: w.minScale, sinceMs: since, untilMs };
  }
  return best;
}
