import type { Issue } from "./types.js";

/** One webhook error as knative.dev/pkg models it: a message, the fields it concerns, optional details. */
export interface FieldError {
  message: string;
  paths: string[];
  details?: string;
}

/** Byte-wise order, as Go's `sort.Strings` uses (not the locale's). */
function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Merges errors that share message and details (their paths are unioned), sorts paths and then errors by
 * message and details: the normal form `FieldError.Error()` renders.
 */
export function mergeFieldErrors(errors: readonly FieldError[]): FieldError[] {
  const groups = new Map<string, FieldError>();
  for (const e of errors) {
    const key = JSON.stringify([e.message, e.details ?? ""]);
    const g = groups.get(key);
    if (g) g.paths.push(...e.paths);
    else
      groups.set(key, {
        message: e.message,
        paths: [...e.paths],
        ...(e.details ? { details: e.details } : {}),
      });
  }
  const merged = [...groups.values()];
  for (const g of merged) g.paths = [...new Set(g.paths)].sort(byteOrder);
  return merged.sort(
    (a, b) => byteOrder(a.message, b.message) || byteOrder(a.details ?? "", b.details ?? ""),
  );
}

/**
 * Renders errors exactly as Knative's webhook reports them: `<message>: <path>, <path>` per error, then
 * `\n<details>` when present, errors joined by newlines. No errors renders as the empty string.
 */
export function renderFieldErrors(errors: readonly FieldError[]): string {
  return mergeFieldErrors(errors)
    .map((e) => {
      const head = e.paths.length > 0 ? `${e.message}: ${e.paths.join(", ")}` : e.message;
      return e.details ? `${head}\n${e.details}` : head;
    })
    .join("\n");
}

/** Turns parse issues into field errors so they render with the webhook's errors. */
export function issuesToFieldErrors(issues: readonly Issue[]): FieldError[] {
  return issues.map((i) => ({
    message: i.message,
    paths: [i.path],
    ...(i.details ? { details: i.details } : {}),
  }));
}

/** Flattens field errors to one issue per path, the shape the rest of Thaw reports. */
export function fieldErrorsToIssues(errors: readonly FieldError[]): Issue[] {
  return mergeFieldErrors(errors).flatMap((e) =>
    e.paths.map((path) => ({ path, message: e.message, ...(e.details ? { details: e.details } : {}) })),
  );
}
