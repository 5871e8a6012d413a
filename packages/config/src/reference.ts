import { KEY_DOCS } from "./key-docs.js";
import { configSchema } from "./schema.js";

/** One key of thaw.config.yaml as the reference page shows it. */
export interface ReferenceRow {
  /** Dotted path; `services[]` stands for every entry of the list. */
  path: string;
  type: string;
  /** The value used when the key is left out, as YAML would spell it; "" when there is none. */
  default: string;
  required: boolean;
  /** The Knative Serving field or annotation this key stands for; "" when Thaw's own. */
  knative: string;
  /** Empty when key-docs.ts has no entry for the path yet. */
  description: string;
}

/** The valibot internals the walk reads: every schema and action carries `type`. */
interface Node {
  type: string;
  wrapped?: Node;
  default?: unknown;
  pipe?: Node[];
  entries?: Record<string, Node>;
  item?: Node;
  value?: Node;
  options?: (Node | string)[];
  message?: unknown;
  requirement?: unknown;
}

/** Every key of the schema, in its order, with its docs from key-docs.ts: generated, never hand-listed. */
export function configReference(): ReferenceRow[] {
  const rows: ReferenceRow[] = [];
  walk(configSchema as unknown as Node, "", rows);
  return rows;
}

function walk(schema: Node, prefix: string, rows: ReferenceRow[]): void {
  for (const [key, raw] of Object.entries(schema.entries ?? {})) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    const optional = raw.type === "optional";
    const inner = optional && raw.wrapped ? raw.wrapped : raw;
    const docs = KEY_DOCS[path];
    rows.push({
      path,
      type: typeOf(inner),
      default: optional ? shownDefault(raw.default) : "",
      required: !optional,
      knative: docs?.knative ?? "",
      description: docs?.text ?? "",
    });
    const object = objectIn(inner);
    if (object) walk(object, object === listedObject(inner) ? `${path}[]` : path, rows);
  }
}

/** The mapping whose keys are listed under this key: its own, or its list items'. */
function objectIn(schema: Node): Node | undefined {
  return isObject(schema) ? schema : listedObject(schema);
}

function listedObject(schema: Node): Node | undefined {
  const item = schema.type === "array" ? schema.item : undefined;
  return item && isObject(item) ? item : undefined;
}

function isObject(schema: Node): boolean {
  return schema.type === "strict_object" || schema.type === "object";
}

function typeOf(schema: Node): string {
  const actions = schema.pipe ?? [];
  switch (schema.type) {
    case "number": {
      const whole = actions.some((a) => a.type === "integer");
      const min = actions.find((a) => a.type === "min_value")?.requirement;
      const max = actions.find((a) => a.type === "max_value")?.requirement;
      const range = min !== undefined && max !== undefined ? ` ${min}–${max}` : "";
      return `${whole ? "integer" : "number"}${range}`;
    }
    case "string": {
      const prefix = actions.find((a) => a.type === "starts_with")?.requirement;
      if (actions.some((a) => a.type === "url")) return "URL";
      return prefix === undefined ? "string" : `string starting with ${prefix}`;
    }
    case "picklist":
      return (schema.options ?? []).map((o) => `\`${String(o)}\``).join(" or ");
    case "union": {
      // A union names what it is in its message (`must be a duration such as 30s`): show that noun.
      const noun =
        typeof schema.message === "string"
          ? /must be an? ([a-z ]+?)(?: such| or|,|$)/i.exec(schema.message)
          : null;
      if (noun?.[1] && /duration|quantity/i.test(noun[1])) return noun[1];
      return (schema.options ?? []).map((o) => typeOf(o as Node)).join(" or ");
    }
    case "array":
      return schema.item && isObject(schema.item)
        ? "list of mappings"
        : `list of ${typeOf(schema.item as Node)}`;
    case "record":
      return `mapping of string to ${typeOf(schema.value as Node)}`;
    case "strict_object":
    case "object":
      return "mapping";
    case "boolean":
      return "true or false";
    case "unknown":
      return "any";
    default:
      return schema.type;
  }
}

function shownDefault(value: unknown): string {
  const v = typeof value === "function" ? (value as () => unknown)() : value;
  if (v === undefined) return "";
  if (Array.isArray(v) && v.length === 0) return "[]";
  if (v !== null && typeof v === "object" && Object.keys(v).length === 0) return "{}";
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** The page `docs/config.md`: one table of every key, written by `npm run docs:config`. */
export function renderConfigReference(rows: readonly ReferenceRow[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const code = (s: string) => (s === "" ? "" : `\`${s}\``);
  const lines = [
    "# thaw.config.yaml reference",
    "",
    "<!-- Generated from packages/config/src/schema.ts and key-docs.ts by `npm run docs:config`; do not edit:",
    "     packages/config/src/node/reference.test.ts fails when this page and the schema differ. -->",
    "",
    "Every key `thaw up`, `thaw validate`, `thaw k8s render`, the activator, the hook and the autoscaler read",
    "from `thaw.config.yaml`. `services[]` is each entry of the `services` list; a key with no default and not",
    "marked required may be left out. The `autoscaling:` and `autoscaler:` mappings take Knative's own keys",
    "(checked by `@thaw/autoscaler`; `thaw validate` names any it does not know).",
    "",
    "| key | type | default | Knative | description |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const r of rows) {
    const def = r.required ? "required" : code(r.default);
    lines.push(
      `| \`${r.path}\` | ${cell(r.type)} | ${cell(def)} | ${cell(r.knative)} | ${cell(r.description)} |`,
    );
  }
  return `${lines.join("\n")}\n`;
}
