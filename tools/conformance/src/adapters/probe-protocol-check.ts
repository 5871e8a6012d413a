import { diff } from "../compare.js";
import { fail, type Outcome, pass } from "../types.js";

/**
 * Compares every key the vector expects with what the adapter observed. A key the adapter did not
 * observe is a failure, so a vector can never pass on an assertion nobody made.
 */
export function checkKeys(expect: Record<string, unknown>, actual: Record<string, unknown>): Outcome {
  for (const key of Object.keys(expect)) {
    if (!(key in actual)) return fail(`adapter does not observe expect.${key}`);
    const d = diff(actual[key], expect[key], `expect.${key}`);
    if (d) return fail(d);
  }
  return pass;
}

/** A request for `path` on a dummy host with the vector's headers. */
export function requestFrom(
  headers: Record<string, string> | undefined,
  init: { method?: string; path?: string; url?: string } = {},
): Request {
  const url = init.url ?? `http://example.com${init.path ?? "/"}`;
  return new Request(url, { method: init.method ?? "GET", headers: headers ?? {} });
}

/** Response headers as a name -> value map, restricted to the names `wanted` lists (case as given). */
export function pickHeaders(res: Response, wanted: Record<string, unknown>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const name of Object.keys(wanted)) out[name] = res.headers.get(name);
  return out;
}
