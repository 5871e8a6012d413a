/** One requirement of a label selector, as the API server parses them. */
type Requirement =
  | { op: "=" | "!="; key: string; value: string }
  | { op: "in" | "notin"; key: string; values: string[] }
  | { op: "exists" | "!exists"; key: string };

/**
 * Parses a label selector in the documented syntax: equality (`k=v`, `k==v`, `k!=v`), set-based
 * (`k in (a,b)`, `k notin (a)`), existence (`k`, `!k`), joined by commas (all must hold). Throws on
 * syntax the API server would reject with 400.
 */
export function parseLabelSelector(text: string): Requirement[] {
  const out: Requirement[] = [];
  for (const part of splitTop(text)) {
    const p = part.trim();
    if (p === "") continue;
    let m = /^([^\s!=]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(p);
    if (m) {
      out.push({
        op: m[2] as "in" | "notin",
        key: m[1] as string,
        values: (m[3] as string).split(",").map((v) => v.trim()),
      });
      continue;
    }
    m = /^([^\s!=]+)\s*(==|=|!=)\s*([^\s,]*)$/.exec(p);
    if (m) {
      out.push({ op: m[2] === "!=" ? "!=" : "=", key: m[1] as string, value: m[3] as string });
      continue;
    }
    m = /^(!?)([^\s!=(),]+)$/.exec(p);
    if (m) {
      out.push({ op: m[1] ? "!exists" : "exists", key: m[2] as string });
      continue;
    }
    throw new Error(`unable to parse requirement: ${JSON.stringify(p)}`);
  }
  return out;
}

/** Whether `labels` satisfy every requirement. */
export function matchesLabels(
  reqs: readonly Requirement[],
  labels: Record<string, string> | undefined,
): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.hasOwn(l, r.key);
    switch (r.op) {
      case "=":
        return l[r.key] === r.value;
      case "!=":
        return l[r.key] !== r.value;
      case "in":
        return has && r.values.includes(l[r.key] as string);
      case "notin":
        return !has || !r.values.includes(l[r.key] as string);
      case "exists":
        return has;
      case "!exists":
        return !has;
      default:
        return false;
    }
  });
}

/** Splits on commas outside parentheses. */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  parts.push(cur);
  return parts;
}

/**
 * Field labels the emulator supports per resource: `metadata.name` and `metadata.namespace` for all, and for
 * core v1 events some of the real server's own (its event strategy's selectable fields).
 */
const FIELDS: Record<string, (o: Record<string, unknown>) => unknown> = {
  "metadata.name": (o) => (o.metadata as { name?: string } | undefined)?.name,
  "metadata.namespace": (o) => (o.metadata as { namespace?: string } | undefined)?.namespace,
};
const EVENT_FIELDS: Record<string, (o: Record<string, unknown>) => unknown> = {
  "involvedObject.kind": (o) => (o.involvedObject as { kind?: string } | undefined)?.kind,
  "involvedObject.name": (o) => (o.involvedObject as { name?: string } | undefined)?.name,
  "involvedObject.namespace": (o) => (o.involvedObject as { namespace?: string } | undefined)?.namespace,
  "involvedObject.fieldPath": (o) => (o.involvedObject as { fieldPath?: string } | undefined)?.fieldPath,
  reason: (o) => o.reason,
  type: (o) => o.type,
};

function fieldsOf(resource: string): Record<string, (o: Record<string, unknown>) => unknown> {
  return resource === "events" ? { ...FIELDS, ...EVENT_FIELDS } : FIELDS;
}

const TERM = /^\s*([A-Za-z.]+)\s*(==|=|!=)\s*(\S*)\s*$/;

/**
 * The error the real server gives (400 BadRequest) for a field selector it cannot apply to `resource`;
 * undefined when it can.
 */
export function fieldSelectorError(resource: string, selector: string | null): string | undefined {
  if (!selector) return undefined;
  const known = fieldsOf(resource);
  for (const part of selector.split(",")) {
    const m = TERM.exec(part);
    if (!m || !((m[1] as string) in known)) return `field label not supported: ${m?.[1] ?? part.trim()}`;
  }
  return undefined;
}

/** Whether `obj` of `resource` matches a field selector ({@link fieldSelectorError} said it is valid). */
export function matchesFields(selector: string | null, obj: object, resource = ""): boolean {
  if (!selector) return true;
  const known = fieldsOf(resource);
  return selector.split(",").every((part) => {
    const m = TERM.exec(part);
    const get = m ? known[m[1] as string] : undefined;
    if (!m || !get) throw new Error(`field label not supported: ${JSON.stringify(part)}`);
    const actual = String(get(obj as Record<string, unknown>) ?? "");
    return m[2] === "!=" ? actual !== m[3] : actual === m[3];
  });
}
