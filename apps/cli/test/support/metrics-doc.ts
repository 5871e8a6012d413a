import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
/** docs/metrics.md, the one list of metrics. */
export const METRICS_DOC = join(root, "docs/metrics.md");
/** The Grafana dashboard built on them. */
export const GRAFANA_DASHBOARD = join(root, "infra/grafana/thaw.json");

/** One row of the doc's "Every metric" table. */
export interface DocMetric {
  name: string;
  type: string;
  components: string[];
}

/** Reads the table under "## Every metric": `| \`name\` | type | labels | components | meaning |`. */
export function readMetricsDoc(path = METRICS_DOC): Map<string, DocMetric> {
  const lines = readFileSync(path, "utf8").split("\n");
  const start = lines.findIndex((l) => l.startsWith("## Every metric"));
  if (start < 0) throw new Error(`${path}: no "## Every metric" section`);
  const out = new Map<string, DocMetric>();
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("## ")) break;
    const m = /^\| `([a-zA-Z_:][a-zA-Z0-9_:]*)` \|(.*)\|\s*$/.exec(line);
    if (!m) continue;
    const cells = (m[2] as string).split("|").map((c) => c.trim());
    const [type, , components] = cells;
    if (!type || !components) throw new Error(`${path}: row ${m[1]} lacks a type or components cell`);
    if (out.has(m[1] as string)) throw new Error(`${path}: ${m[1]} is listed twice`);
    out.set(m[1] as string, {
      name: m[1] as string,
      type,
      components: components.split(",").map((c) => c.trim()),
    });
  }
  if (out.size === 0) throw new Error(`${path}: the "Every metric" table has no rows`);
  return out;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/;

/**
 * The metric families of a Prometheus text exposition, by name with their `# TYPE`. Throws on a sample
 * line that does not parse, has no number, or belongs to no declared family (so a malformed page fails).
 */
export function exposedFamilies(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    const type = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      families.set(type[1] as string, type[2] as string);
      continue;
    }
    const s = SAMPLE.exec(line);
    if (!s || !/^([+-]?(\d+(\.\d+)?([eE][+-]?\d+)?|Inf)|NaN)$/.test(s[3] as string)) {
      throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`);
    }
    if (!families.has(familyOf(s[1] as string, families))) {
      throw new Error(`sample ${s[1]} has no # TYPE line before it`);
    }
  }
  return families;
}

/** `x_bucket` / `x_sum` / `x_count` belong to histogram `x`; anything else is its own family. */
export function familyOf(sample: string, known?: ReadonlyMap<string, string>): string {
  const base = sample.replace(/_(bucket|sum|count)$/, "");
  if (base !== sample && (!known || known.has(base))) return base;
  return sample;
}
