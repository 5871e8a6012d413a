import * as v from "valibot";
import { configSchema, type ThawConfig } from "./schema.js";

/** One problem in a config, with the field path a person can find in the file. */
export interface ConfigIssue {
  path: string;
  message: string;
}

/** A parsed config, or every issue found at once. */
export type ConfigResult = { ok: true; value: ThawConfig } | { ok: false; issues: ConfigIssue[] };

/** Renders a valibot path as `services[0].run.command`. */
function pathOf(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = item.key as string | number;
    out += typeof key === "number" ? `[${key}]` : out === "" ? key : `.${key}`;
  }
  return out || "(top level)";
}

/** A missing key carries the key's own name as its expected value; say "is required" instead. */
function messageOf(issue: v.BaseIssue<unknown>): string {
  return issue.received === "undefined" && issue.expected?.startsWith('"') ? "is required" : issue.message;
}

/** Checks that go across entries: unique service identities and unique host/path routes. */
function crossChecks(config: ThawConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const ids = new Map<string, number>();
  const routes = new Map<string, number>();
  config.services.forEach((s, i) => {
    const id = `${s.namespace}/${s.name}`;
    const first = ids.get(id);
    if (first !== undefined) {
      issues.push({ path: `services[${i}].name`, message: `${id} is already defined by services[${first}]` });
    } else ids.set(id, i);
    for (const host of s.hosts) {
      for (const prefix of s.paths.length > 0 ? s.paths : ["/"]) {
        const key = `${host.toLowerCase()}${prefix}`;
        const owner = routes.get(key);
        if (owner !== undefined && owner !== i) {
          issues.push({
            path: `services[${i}].hosts`,
            message: `${host}${prefix} is already routed to services[${owner}]; give one of them a path prefix`,
          });
        } else routes.set(key, i);
      }
    }
  });
  return issues;
}

/** Validates a config object (already read from YAML or JSON), reporting every issue at once. */
export function parseConfig(input: unknown): ConfigResult {
  const result = v.safeParse(configSchema, input, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) {
    return { ok: false, issues: result.issues.map((i) => ({ path: pathOf(i), message: messageOf(i) })) };
  }
  const issues = crossChecks(result.output);
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: result.output };
}

/** One line per issue, as `thaw validate` prints them. */
export function formatIssues(issues: readonly ConfigIssue[], file?: string): string {
  const where = file ? `${file}: ` : "";
  return issues.map((i) => `${where}${i.path}: ${i.message}`).join("\n");
}
