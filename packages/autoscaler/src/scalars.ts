/** Go's strconv.ParseFloat for the decimal forms people write in config (`10`, `0.7`, `1e3`, `-1`). */
export function parseFloatStrict(text: string): number | undefined {
  const t = text.trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t)) return undefined;
  return Number(t);
}

/** A base-10 int32, as Go's strconv.ParseInt(s, 10, 32). */
export function parseInt32Strict(text: string): number | undefined {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) return undefined;
  const n = Number(t);
  return n >= -2147483648 && n <= 2147483647 ? n : undefined;
}

/** Turns a YAML/JSON scalar into the string Knative would have found in a ConfigMap or annotation. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  return undefined;
}
