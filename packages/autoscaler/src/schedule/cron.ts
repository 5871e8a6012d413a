/** A parsed five-field cron expression: the values each field allows, in local wall-clock terms. */
export interface CronSpec {
  /** The expression as written (trimmed). */
  text: string;
  minutes: ReadonlySet<number>;
  hours: ReadonlySet<number>;
  daysOfMonth: ReadonlySet<number>;
  months: ReadonlySet<number>;
  /** 0 = Sunday … 6 = Saturday (7 is read as 0). */
  daysOfWeek: ReadonlySet<number>;
  /** Both day fields restricted: a day matches when either does (the rule of Vixie cron and its heirs). */
  dayOr: boolean;
}

/** A cron parse: the spec, or a message naming the field at fault and how to fix it. */
export type CronResult = { ok: true; value: CronSpec } | { ok: false; message: string };

interface FieldShape {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
}

const FIELDS: readonly FieldShape[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day of month", min: 1, max: 31 },
  {
    name: "month",
    min: 1,
    max: 12,
    names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
  },
  { name: "day of week", min: 0, max: 7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

/** Shorthands most crons accept, spelled out in five fields. */
const MACROS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const HELP = "five fields: minute hour day-of-month month day-of-week, e.g. 0 8 * * mon-fri";

/**
 * Parses a five-field cron expression: `*`, numbers, ranges `a-b`, steps `*\/n` and `a-b/n` (and `a/n`,
 * from a to the end), comma lists, month and weekday names (jan, mon; any case), and the @daily-style
 * shorthands. Seconds and years fields are not accepted.
 */
export function parseCron(input: string): CronResult {
  const text = input.trim();
  const expanded = MACROS[text.toLowerCase()] ?? text;
  if (expanded.startsWith("@")) {
    return {
      ok: false,
      message: `unknown shorthand ${JSON.stringify(text)}; use ${Object.keys(MACROS).join(", ")} or ${HELP}`,
    };
  }
  const parts = expanded.split(/\s+/).filter((p) => p !== "");
  if (parts.length !== 5) {
    return { ok: false, message: `has ${parts.length} field${parts.length === 1 ? "" : "s"}; needs ${HELP}` };
  }
  const sets: Set<number>[] = [];
  for (let i = 0; i < 5; i++) {
    const shape = FIELDS[i] as FieldShape;
    const r = parseField(parts[i] as string, shape);
    if (typeof r === "string")
      return { ok: false, message: `${shape.name} field ${JSON.stringify(parts[i])}: ${r}` };
    sets.push(r);
  }
  const dow = sets[4] as Set<number>;
  if (dow.delete(7)) dow.add(0);
  return {
    ok: true,
    value: {
      text,
      minutes: sets[0] as Set<number>,
      hours: sets[1] as Set<number>,
      daysOfMonth: sets[2] as Set<number>,
      months: sets[3] as Set<number>,
      daysOfWeek: dow,
      dayOr: !(parts[2] as string).startsWith("*") && !(parts[4] as string).startsWith("*"),
    },
  };
}

/** One field: the set of values, or what is wrong with it. */
function parseField(field: string, shape: FieldShape): Set<number> | string {
  const out = new Set<number>();
  for (const item of field.split(",")) {
    if (item === "") return "has an empty list item";
    const [range, stepText, extra] = item.split("/");
    if (extra !== undefined) return `"${item}" has two steps`;
    let step = 1;
    if (stepText !== undefined) {
      if (!/^\d+$/.test(stepText) || Number(stepText) < 1)
        return `step "${stepText}" must be a whole number ≥ 1`;
      step = Number(stepText);
    }
    let lo: number;
    let hi: number;
    if (range === "*") {
      lo = shape.min;
      hi = shape.max;
    } else {
      const [a, b, more] = (range as string).split("-");
      if (more !== undefined) return `"${range}" is not a value or a range a-b`;
      const av = fieldValue(a as string, shape);
      if (typeof av === "string") return av;
      lo = av;
      if (b === undefined) hi = stepText === undefined ? av : shape.max;
      else {
        const bv = fieldValue(b, shape);
        if (typeof bv === "string") return bv;
        hi = bv;
      }
      if (hi < lo) return `range ${range} runs backwards; write it low-high`;
    }
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

function fieldValue(text: string, shape: FieldShape): number | string {
  const byName = shape.names?.indexOf(text.toLowerCase()) ?? -1;
  if (byName >= 0) return byName + (shape.min === 1 ? 1 : 0);
  if (!/^\d+$/.test(text)) {
    const names = shape.names ? ` or a name (${shape.names[0]}…${shape.names[shape.names.length - 1]})` : "";
    return `"${text}" is not a number${names}`;
  }
  const v = Number(text);
  if (v < shape.min || v > shape.max) return `${v} is outside ${shape.min}-${shape.max}`;
  return v;
}

/** Does a local calendar day (month 1-12, day 1-31, weekday 0-6) match the spec's day fields? */
export function cronMatchesDay(spec: CronSpec, month: number, day: number, weekday: number): boolean {
  if (!spec.months.has(month)) return false;
  const dom = spec.daysOfMonth.has(day);
  const dow = spec.daysOfWeek.has(weekday);
  return spec.dayOr ? dom || dow : dom && dow;
}
