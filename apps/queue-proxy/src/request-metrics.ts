/** Knative's bucket bounds for `kn.serving.invocation.duration`, in seconds (c.6). */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
];

interface Series {
  /** Per-bucket (not cumulative) counts; the last slot is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

/** Escapes a Prometheus label value. */
function label(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/**
 * The queue-proxy's request metrics, kept as plain numbers and rendered as Prometheus text on scrape.
 * Recording is a map lookup and a short scan (no label objects, no registry), which is what keeps
 * metrics-on within 10 % of metrics-off; prom-client's labelled histograms cost several times more.
 */
export class RequestMetrics {
  private readonly series = new Map<number, Series>();
  private readonly constLabels: string;

  constructor(
    labels: Record<string, string>,
    private readonly queueDepth: (() => number) | null,
  ) {
    this.constLabels = Object.entries(labels)
      .map(([k, v]) => `${k}="${label(v)}"`)
      .join(",");
  }

  /** One finished request: its status and duration in milliseconds. */
  observe(status: number, ms: number): void {
    let s = this.series.get(status);
    if (s === undefined) {
      s = { counts: new Array(DURATION_BUCKETS_SECONDS.length + 1).fill(0), sum: 0, count: 0 };
      this.series.set(status, s);
    }
    const seconds = ms / 1000;
    let i = 0;
    while (i < DURATION_BUCKETS_SECONDS.length && seconds > (DURATION_BUCKETS_SECONDS[i] as number)) i++;
    (s.counts[i] as number)++;
    s.sum += seconds;
    s.count++;
  }

  /** Prometheus text exposition (version 0.0.4). */
  render(): string {
    const name = "kn_serving_invocation_duration_seconds";
    const c = this.constLabels === "" ? "" : `${this.constLabels},`;
    const out = [
      `# HELP ${name} The time it took to serve a request, from the queue-proxy's view.`,
      `# TYPE ${name} histogram`,
    ];
    for (const [status, s] of [...this.series].sort((a, b) => a[0] - b[0])) {
      const l = `${c}http_response_status_code="${status}"`;
      let cumulative = 0;
      DURATION_BUCKETS_SECONDS.forEach((le, i) => {
        cumulative += s.counts[i] as number;
        out.push(`${name}_bucket{${l},le="${le}"} ${cumulative}`);
      });
      cumulative += s.counts[DURATION_BUCKETS_SECONDS.length] as number;
      out.push(`${name}_bucket{${l},le="+Inf"} ${cumulative}`);
      out.push(`${name}_sum{${l}} ${s.sum}`);
      out.push(`${name}_count{${l}} ${s.count}`);
    }
    if (this.queueDepth) {
      out.push(
        "# HELP kn_serving_queue_depth Requests admitted by the breaker, executing or waiting.",
        "# TYPE kn_serving_queue_depth gauge",
        `kn_serving_queue_depth${this.constLabels === "" ? "" : `{${this.constLabels}}`} ${this.queueDepth()}`,
      );
    }
    return `${out.join("\n")}\n`;
  }
}
