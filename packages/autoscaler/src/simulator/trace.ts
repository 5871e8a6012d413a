import type { Issue, ParseResult } from "../issues.js";

/** One request of a trace: when it arrives and how long the app takes to serve it, both in ms. */
export interface TraceRequest {
  arrivalMs: number;
  durationMs: number;
}

/** Trace formats the simulator reads. */
export type TraceFormat = "csv" | "jsonl";

/** At most this many issues are reported, so a wrong file does not flood the terminal. */
const MAX_ISSUES = 20;

/**
 * Parses a request trace.
 * - CSV: one request per line, `arrival_ms,duration_ms`; an optional header line whose first field is not a
 *   number; blank lines and lines starting with `#` are skipped.
 * - JSONL: one object per line, `{"arrivalMs": 12.5, "durationMs": 300}` (`arrival_ms`/`duration_ms` too).
 * Times are milliseconds from the start of the trace, ≥ 0. Rows need not be sorted; the result is.
 * Issues name the line and field, e.g. `line 7: durationMs`.
 */
export function parseTrace(text: string, format?: TraceFormat): ParseResult<TraceRequest[]> {
  const fmt = format ?? (text.trimStart().startsWith("{") ? "jsonl" : "csv");
  const out: TraceRequest[] = [];
  const issues: Issue[] = [];
  const lines = text.split("\n");
  let sorted = true;
  let seenRow = false;
  for (let i = 0; i < lines.length && issues.length < MAX_ISSUES; i++) {
    const line = (lines[i] as string).trim();
    if (line === "" || line.startsWith("#")) continue;
    const where = `line ${i + 1}`;
    let a: unknown;
    let d: unknown;
    // What the row holds as written: a CSV cell's text, not the NaN it converts to (JSON shows NaN as null).
    let written: unknown[] = [];
    if (fmt === "jsonl") {
      let row: unknown;
      try {
        row = JSON.parse(line);
      } catch {
        issues.push({ path: where, message: "is not a JSON object" });
        continue;
      }
      if (row === null || typeof row !== "object" || Array.isArray(row)) {
        issues.push({ path: where, message: "must be an object with arrivalMs and durationMs" });
        continue;
      }
      const r = row as Record<string, unknown>;
      a = r.arrivalMs ?? r.arrival_ms;
      d = r.durationMs ?? r.duration_ms;
      written = [a, d];
    } else {
      const cells = line.split(",").map((c) => c.trim());
      // Only the first row may be a header: a later `abc,100` is a bad row, not a second header.
      const first = !seenRow;
      seenRow = true;
      if (first && !/^[-+.\d]/.test(cells[0] ?? "")) continue;
      if (cells.length < 2) {
        issues.push({ path: `${where}: duration_ms`, message: "missing; expected arrival_ms,duration_ms" });
        continue;
      }
      a = cells[0] === "" ? undefined : Number(cells[0]);
      d = cells[1] === "" ? undefined : Number(cells[1]);
      written = [cells[0], cells[1]].map((c) =>
        c === "" ? undefined : Number.isFinite(Number(c)) ? Number(c) : c,
      );
    }
    const field = fmt === "jsonl" ? ["arrivalMs", "durationMs"] : ["arrival_ms", "duration_ms"];
    let ok = true;
    for (const [k, v, shown] of [
      [field[0], a, written[0]],
      [field[1], d, written[1]],
    ] as const) {
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0) {
        issues.push({
          path: `${where}: ${k}`,
          message: `must be a number of milliseconds ≥ 0, got ${JSON.stringify(shown) ?? "nothing"}`,
        });
        ok = false;
      }
    }
    if (!ok) continue;
    const req = { arrivalMs: a as number, durationMs: d as number };
    const prev = out[out.length - 1];
    if (prev && prev.arrivalMs > req.arrivalMs) sorted = false;
    out.push(req);
  }
  if (issues.length > 0) return { ok: false, issues };
  if (!sorted) out.sort((x, y) => x.arrivalMs - y.arrivalMs);
  return { ok: true, value: out };
}
