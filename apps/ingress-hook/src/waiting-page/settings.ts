import type { Issue } from "../config.js";
import type { WaitingPage } from "./hold.js";
import { parseTemplate } from "./template.js";

/** The threshold when none is given: a start faster than this never shows the page. */
export const DEFAULT_PAGE_AFTER_MS = 2000;

/**
 * A route's `waitingPage` in a bare routing table (the Worker's THAW_SERVICES JSON, which has no files):
 * `{enabled?: boolean, afterMs?: number, template?: "<html with {{placeholders}}>"}`. Absent = on with the
 * built-in page after 2 s, as in thaw.config.yaml; `enabled: false` = off (undefined).
 */
export function parseWaitingPageSetting(raw: unknown, at: string, issues: Issue[]): WaitingPage | undefined {
  if (raw === undefined) return { afterMs: DEFAULT_PAGE_AFTER_MS };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    issues.push({ path: at, message: "must be a mapping {enabled, afterMs, template}" });
    return undefined;
  }
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (!["enabled", "afterMs", "template"].includes(k)) {
      issues.push({ path: `${at}.${k}`, message: "unknown field; allowed here: enabled, afterMs, template" });
    }
  }
  if (o["enabled"] !== undefined && typeof o["enabled"] !== "boolean") {
    issues.push({ path: `${at}.enabled`, message: "must be true or false" });
  }
  const after = o["afterMs"] ?? DEFAULT_PAGE_AFTER_MS;
  if (!(Number.isInteger(after) && (after as number) >= 0 && (after as number) <= 600_000)) {
    issues.push({
      path: `${at}.afterMs`,
      message: `must be whole milliseconds 0..600000, got ${JSON.stringify(after)}`,
    });
  }
  const page: WaitingPage = { afterMs: after as number };
  if (o["template"] !== undefined) {
    const parsed = typeof o["template"] === "string" ? parseTemplate(o["template"]) : undefined;
    if (!parsed) issues.push({ path: `${at}.template`, message: "must be the page's HTML as a string" });
    else if (!parsed.ok) issues.push({ path: `${at}.template`, message: parsed.error });
    else page.template = parsed.template;
  }
  return o["enabled"] === false ? undefined : page;
}
