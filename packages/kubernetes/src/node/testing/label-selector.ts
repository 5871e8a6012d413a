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

/** Field selectors the emulator supports: `metadata.name` and `metadata.namespace`, `=`/`==`/`!=`. */
export function matchesFields(
  selector: string | null,
  obj: { metadata?: { name?: string; namespace?: string } },
): boolean {
  if (!selector) return true;
  return selector.split(",").every((part) => {
    const m = /^\s*(metadata\.name|metadata\.namespace)\s*(==|=|!=)\s*(\S*)\s*$/.exec(part);
    if (!m) throw new Error(`field label not supported: ${JSON.stringify(part)}`);
    const actual = m[1] === "metadata.name" ? obj.metadata?.name : obj.metadata?.namespace;
    return m[2] === "!=" ? actual !== m[3] : actual === m[3];
  });
}
