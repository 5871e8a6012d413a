import { readFile, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { parseDurationMs, type ThawConfig } from "@thaw/config";
import type { WaitingPage } from "../waiting-page/hold.js";
import { MAX_TEMPLATE_CHARS, parseTemplate } from "../waiting-page/template.js";

/** Each service's waiting page by revision key (`namespace/name`), or every issue with its field path. */
export type LoadedWaitingPages =
  | { ok: true; pages: Map<string, WaitingPage> }
  | { ok: false; issues: { path: string; message: string }[] };

/**
 * Reads the services' `waitingPage` settings of a validated config: the threshold, and the template
 * file (relative to `baseDir`, the config's folder) read and parsed now, so a bad one stops the start.
 */
export async function loadWaitingPages(config: ThawConfig, baseDir: string): Promise<LoadedWaitingPages> {
  const pages = new Map<string, WaitingPage>();
  const issues: { path: string; message: string }[] = [];
  for (const [i, s] of config.services.entries()) {
    const wp = s.waitingPage;
    if (!wp.enabled) continue;
    const page: WaitingPage = { afterMs: parseDurationMs(wp.after) as number };
    if (wp.template !== undefined) {
      const path = `services[${i}].waitingPage.template`;
      const file = resolve(baseDir, wp.template);
      try {
        // Bounded before it is read: a template is a few KiB.
        if ((await stat(file)).size > MAX_TEMPLATE_CHARS * 4) {
          issues.push({ path, message: `${file} is larger than ${MAX_TEMPLATE_CHARS} characters` });
          continue;
        }
        const parsed = parseTemplate(await readFile(file, "utf8"));
        if (!parsed.ok) issues.push({ path, message: `${file}: ${parsed.error}` });
        else page.template = parsed.template;
      } catch (err) {
        issues.push({ path, message: `cannot read ${file}: ${(err as Error).message}` });
      }
    }
    pages.set(`${s.namespace}/${s.name}`, page);
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, pages };
}
