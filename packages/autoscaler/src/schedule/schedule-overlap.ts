import type { Issue } from "../issues.js";
import { nextFiring } from "./cron-search.js";
import type { ScheduleWindow } from "./schedule.js";

/** How far ahead overlaps are looked for, and at most how many openings of one window are looked at. */
const HORIZON_MS = 400 * 86_400_000;
const MAX_OPENINGS = 2000;

/** The intervals a window is open during [from, from + horizon), merged, at most MAX_OPENINGS of them. */
function openings(w: ScheduleWindow, from: number): [number, number][] {
  const out: [number, number][] = [];
  let cursor = from;
  while (out.length < MAX_OPENINGS) {
    const s = nextFiring(w.start, w.timezone, cursor);
    if (s === undefined || s > from + HORIZON_MS) break;
    const e = w.end
      ? (nextFiring(w.end, w.timezone, s) ?? Number.POSITIVE_INFINITY)
      : s + (w.durationMs ?? 0);
    const last = out[out.length - 1];
    // A start inside an open window re-opens it (the window runs from its latest start).
    if (last && s < last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
    cursor = w.end ? e : s;
    if (!Number.isFinite(cursor)) break;
  }
  return out;
}

/**
 * Windows of one service must not be open at once (which min-scale would hold is then a guess). Looks 400
 * days ahead of `fromMs`, at most 2000 openings per window; `path` is the list's path, e.g.
 * `services[0].schedules`. One issue per overlapping pair, on the later window.
 */
export function scheduleOverlapIssues(
  windows: readonly ScheduleWindow[],
  path: string,
  fromMs: number,
): Issue[] {
  const issues: Issue[] = [];
  const spans = windows.map((w) => openings(w, fromMs));
  for (let b = 1; b < windows.length; b++) {
    for (let a = 0; a < b; a++) {
      const hit = firstOverlap(spans[a] as [number, number][], spans[b] as [number, number][]);
      if (hit === undefined) continue;
      issues.push({
        path: `${path}[${b}]`,
        message: `overlaps ${path}[${a}] (both open at ${new Date(hit).toISOString()}); one service's windows must not overlap: move one, or merge them into one window with the larger minScale`,
      });
    }
  }
  return issues;
}

function firstOverlap(x: [number, number][], y: [number, number][]): number | undefined {
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    const [xs, xe] = x[i] as [number, number];
    const [ys, ye] = y[j] as [number, number];
    if (xs < ye && ys < xe) return Math.max(xs, ys);
    if (xe <= ye) i++;
    else j++;
  }
  return undefined;
}
