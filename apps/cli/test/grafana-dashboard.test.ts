import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { familyOf, GRAFANA_DASHBOARD, readMetricsDoc } from "./support/metrics-doc.js";

/** Words of PromQL that are not metric names: operators and grouping modifiers. */
const KEYWORDS = new Set([
  "by",
  "without",
  "on",
  "ignoring",
  "group_left",
  "group_right",
  "bool",
  "and",
  "or",
  "unless",
  "offset",
]);

/**
 * The metric names a PromQL expression reads: label matchers, range selectors, strings, grouping label
 * lists and `$variables` removed, then every identifier that is not a function call or a keyword.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, "")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "")
    .replace(/\$\{?\w+\}?/g, "")
    .replace(/\b\d[\d.eE+-]*[a-z]*\b/g, "");
  const out: string[] = [];
  for (const m of bare.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const after = bare.slice((m.index ?? 0) + m[0].length);
    if (/^\s*\(/.test(after) || KEYWORDS.has(m[0])) continue;
    out.push(m[0]);
  }
  return out;
}

interface Target {
  expr?: string;
  datasource?: { uid?: string };
}
interface Panel {
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}

const dashboard = JSON.parse(readFileSync(GRAFANA_DASHBOARD, "utf8")) as {
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown; definition?: string }[] };
};
/** Grafana's reference to the `datasource` variable (a literal `${...}`, not a template string). */
const DS_VAR = ["$", "{datasource}"].join("");
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const doc = readMetricsDoc();

describe("metricNames (the dashboard check's PromQL reader)", () => {
  it("finds the metric and nothing else", () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (le, namespace) (rate(thaw_x_seconds_bucket{namespace=~"$namespace",a="b{c}"}[$__rate_interval])))',
      ),
    ).toEqual(["thaw_x_seconds_bucket"]);
    expect(metricNames("sum(a_total) / on (pod) group_left b or c offset 5m")).toEqual(["a_total", "b", "c"]);
  });
});

describe("infra/grafana/thaw.json", () => {
  it("is a current Grafana dashboard with a Prometheus data source variable and namespace/revision variables", () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const vars = new Map(dashboard.templating.list.map((v) => [v.name, v]));
    expect(vars.get("datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    expect(vars.get("namespace")?.type).toBe("query");
    expect(vars.get("revision")?.type).toBe("query");
    for (const p of panels) {
      if (!p.targets) continue;
      expect(p.datasource, p.title).toEqual({ type: "prometheus", uid: DS_VAR });
      for (const t of p.targets) expect(t.datasource?.uid, p.title).toBe(DS_VAR);
    }
  });

  it("names only metrics docs/metrics.md lists, in every panel query and variable", () => {
    const queries = [
      ...panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: p.title, expr: t.expr ?? "" }))),
      ...dashboard.templating.list
        .filter((v) => v.type === "query")
        // label_values(<selector>, <label>): the selector is the query.
        .map((v) => ({
          where: `variable ${v.name}`,
          expr: /^label_values\((.*),\s*\w+\)$/.exec(v.definition ?? "")?.[1] ?? "",
        })),
    ];
    expect(queries.length).toBeGreaterThan(10);
    const unknown: string[] = [];
    for (const { where, expr } of queries) {
      const names = metricNames(expr);
      if (names.length === 0) unknown.push(`${where}: no metric in ${JSON.stringify(expr)}`);
      for (const n of names) {
        const family = familyOf(n, new Map([...doc].map(([k, v]) => [k, v.type])));
        if (!doc.has(family)) unknown.push(`${where}: ${n}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it("charts what issue 17 asks for", () => {
    const used = new Set(
      panels.flatMap((p) =>
        (p.targets ?? []).flatMap((t) => metricNames(t.expr ?? "").map((n) => familyOf(n))),
      ),
    );
    for (const m of [
      "thaw_activator_cold_start_seconds",
      "thaw_cold_start_phase_seconds",
      "thaw_activator_queue_depth",
      "thaw_activator_requests_queued_total",
      "thaw_activator_requests_rejected_total",
      "thaw_activator_requests_replayed_total",
      "thaw_autoscaler_desired_pods",
      "thaw_autoscaler_ready_pods",
      "thaw_autoscaler_panic_mode",
      "thaw_autoscaler_scrape_errors_total",
      "thaw_activator_stat_link_reconnects_total",
    ]) {
      expect(used.has(m), m).toBe(true);
    }
  });
});
