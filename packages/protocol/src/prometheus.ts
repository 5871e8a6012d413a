/** The content type of Prometheus text exposition, version 0.0.4. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** Upper bounds of every cold-start histogram, in seconds (a cold start takes from tens of ms to a minute). */
export const COLD_START_BUCKETS_SECONDS: readonly number[] = [
  0.05, 0.1, 0.25, 0.5, 1, 2, 3.5, 5, 10, 20, 30, 60,
];

/** A metric family's Prometheus type. */
export type MetricType = "counter" | "gauge" | "histogram";

/** Escapes a label value for the text format (backslash, double quote, newline). */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** A sample value as the text format spells it (`+Inf`, `-Inf`, `NaN` included). */
function num(n: number): string {
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(n);
}

/** One counter or gauge series. */
export interface ValueSeries {
  value: number;
}

/** One histogram series: per-bucket (not cumulative) counts, the last slot +Inf. */
export interface HistogramSeries {
  readonly counts: number[];
  sum: number;
  count: number;
}

abstract class Family<S> {
  /** Series by their label values joined with NUL; each keeps its rendered label text. */
  protected readonly series = new Map<string, { labels: string; s: S }>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricType,
    readonly labelNames: readonly string[],
  ) {}

  /** The series of these label values (created at zero); keep it to record without a lookup. */
  child(values: readonly string[]): S {
    const key = values.join("\u0000");
    let e = this.series.get(key);
    if (e === undefined) {
      if (values.length !== this.labelNames.length) {
        throw new RangeError(
          `${this.name}: ${this.labelNames.length} label value(s) expected, got ${values.length}`,
        );
      }
      const labels = this.labelNames
        .map((n, i) => `${n}="${escapeLabelValue(values[i] as string)}"`)
        .join(",");
      e = { labels, s: this.fresh() };
      this.series.set(key, e);
    }
    return e.s;
  }

  /** Drops every series (a gauge rebuilt from state at scrape time). */
  clear(): void {
    this.series.clear();
  }

  /** Appends this family's lines to `out`. */
  render(out: string[]): void {
    out.push(`# HELP ${this.name} ${this.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`);
    out.push(`# TYPE ${this.name} ${this.type}`);
    for (const { labels, s } of this.series.values()) this.lines(out, labels, s);
  }

  protected abstract fresh(): S;
  protected abstract lines(out: string[], labels: string, s: S): void;
}

/** A counter (`_total` names) or gauge family. */
export class ValueFamily extends Family<ValueSeries> {
  /** Adds `n` (default 1) to the series of `values`. */
  inc(values: readonly string[], n = 1): void {
    this.child(values).value += n;
  }
  /** Sets the series of `values` (gauges; counters mirrored from a source that counts). */
  set(values: readonly string[], v: number): void {
    this.child(values).value = v;
  }
  protected fresh(): ValueSeries {
    return { value: 0 };
  }
  protected lines(out: string[], labels: string, s: ValueSeries): void {
    out.push(`${this.name}${labels === "" ? "" : `{${labels}}`} ${num(s.value)}`);
  }
}

/** A histogram family with fixed bucket upper bounds (seconds, bytes: base units). */
export class HistogramFamily extends Family<HistogramSeries> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {
    super(name, help, "histogram", labelNames);
  }
  /** Records `v` in the series of `values`. */
  observe(values: readonly string[], v: number): void {
    observe(this.child(values), this.buckets, v);
  }
  protected fresh(): HistogramSeries {
    return { counts: new Array(this.buckets.length + 1).fill(0), sum: 0, count: 0 };
  }
  protected lines(out: string[], labels: string, s: HistogramSeries): void {
    const c = labels === "" ? "" : `${labels},`;
    let cumulative = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cumulative += s.counts[i] as number;
      out.push(`${this.name}_bucket{${c}le="${num(this.buckets[i] as number)}"} ${cumulative}`);
    }
    cumulative += s.counts[this.buckets.length] as number;
    out.push(`${this.name}_bucket{${c}le="+Inf"} ${cumulative}`);
    const l = labels === "" ? "" : `{${labels}}`;
    out.push(`${this.name}_sum${l} ${num(s.sum)}`);
    out.push(`${this.name}_count${l} ${s.count}`);
  }
}

/** Records `v` in a histogram series: a short scan over the bounds, no allocation (warm paths use this). */
export function observe(s: HistogramSeries, buckets: readonly number[], v: number): void {
  let i = 0;
  while (i < buckets.length && v > (buckets[i] as number)) i++;
  (s.counts[i] as number)++;
  s.sum += v;
  s.count++;
}

/**
 * A component's metrics, rendered as Prometheus text on scrape. Recording is plain arithmetic on a series
 * object (no registry lookup once a caller keeps the series); gauges read from state are set by collectors
 * that run just before each render.
 */
export class MetricsRegistry {
  readonly #families: (ValueFamily | HistogramFamily)[] = [];
  readonly #collectors: (() => void)[] = [];

  /** Declares a counter; its name must end in `_total`. */
  counter(name: string, help: string, labelNames: readonly string[] = []): ValueFamily {
    if (!name.endsWith("_total")) throw new RangeError(`counter ${name}: the name must end in _total`);
    return this.#add(new ValueFamily(name, help, "counter", labelNames));
  }

  /** Declares a gauge. */
  gauge(name: string, help: string, labelNames: readonly string[] = []): ValueFamily {
    return this.#add(new ValueFamily(name, help, "gauge", labelNames));
  }

  /** Declares a histogram with these bucket upper bounds (ascending; +Inf is implied). */
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): HistogramFamily {
    return this.#add(new HistogramFamily(name, help, labelNames, buckets));
  }

  /** Runs `fn` before every render (sets gauges from the component's state). */
  onCollect(fn: () => void): void {
    this.#collectors.push(fn);
  }

  /** The declared family names, in declaration order. */
  names(): string[] {
    return this.#families.map((f) => f.name);
  }

  /** Prometheus text exposition (version 0.0.4) of every family, declared or not yet observed. */
  render(): string {
    for (const c of this.#collectors) c();
    const out: string[] = [];
    for (const f of this.#families) f.render(out);
    return out.length === 0 ? "" : `${out.join("\n")}\n`;
  }

  #add<F extends ValueFamily | HistogramFamily>(f: F): F {
    if (this.#families.some((g) => g.name === f.name))
      throw new RangeError(`metric ${f.name} is declared twice`);
    this.#families.push(f);
    return f;
  }
}

/** The text of several registries served on one port (each family is declared in exactly one of them). */
export function renderAll(registries: readonly MetricsRegistry[]): string {
  return registries.map((r) => r.render()).join("");
}
