import * as v from "valibot";
import { autoscalingIssues } from "./autoscaling.js";
import { readinessIssues } from "./readiness.js";
import { configSchema, type ServiceConfig, type ThawConfig } from "./schema.js";
import { silentBehaviourIssues } from "./silent-rules.js";
import { unknownKeyIssues } from "./unknown-keys.js";
import { warmIssues } from "./warm.js";

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

/** A value as a person would name it: `the string "a.localhost"`, `the number 3`, `a list`. */
function describe(x: unknown): string {
  if (typeof x === "string") return `the string ${JSON.stringify(x)}`;
  if (typeof x === "number" || typeof x === "boolean") return `the ${typeof x} ${x}`;
  if (Array.isArray(x)) return "a list";
  if (x === null) return "nothing (null)";
  return typeof x === "object" ? "a mapping" : String(x);
}

/** valibot's own names of types, in the file's words. */
const TYPE_NAMES: Record<string, string> = {
  Array: "a list",
  Object: "a mapping",
  string: "a string",
  number: "a number",
  boolean: "true or false",
};

/**
 * A missing key carries the key's own name as its expected value: "is required". A wrong type says what
 * was found; where the schema set no message, valibot's default (`Invalid type: Expected Array but
 * received "a"`) becomes `expected a list; got the string "a"`.
 */
function messageOf(issue: v.BaseIssue<unknown>): string {
  if (issue.received === "undefined" && issue.expected?.startsWith('"')) return "is required";
  if (issue.kind !== "schema" || issue.type === "strict_object") return issue.message;
  const got = `got ${describe(issue.input)}`;
  if (!issue.message.startsWith("Invalid ")) return `${issue.message}; ${got}`;
  return `expected ${TYPE_NAMES[issue.expected ?? ""] ?? issue.expected}; ${got}`;
}

/** The service's max-scale as written (either key form), or undefined when unset (unlimited). */
function maxScaleOf(s: ServiceConfig): number | undefined {
  const raw = s.autoscaling["max-scale"] ?? s.autoscaling["autoscaling.knative.dev/max-scale"];
  return raw === undefined ? undefined : Number(raw);
}

/**
 * A queue-proxy started by `run.queueProxy.command` gets Knative's env only, which cannot move its admin and
 * metrics ports: two pods of it would collide on one machine, so such a service runs one pod at most.
 */
function queueProxyIssues(s: ServiceConfig, i: number): ConfigIssue[] {
  const qp = s.run?.queueProxy;
  if (!qp) return [];
  const max = maxScaleOf(s);
  if (max === 1) return [];
  return [
    {
      path: `services[${i}].autoscaling.max-scale`,
      message:
        `is ${max === undefined || max === 0 ? "unlimited" : max}, but run.queueProxy binds the fixed ports ` +
        `${qp.adminPort} (admin) and ${qp.metricsPort} (metrics), so only one pod fits on this machine; ` +
        `set max-scale: 1, or drop run.queueProxy to use thaw-queue-proxy, which many pods can share a machine with`,
    },
  ];
}

/** Two services whose queue-proxies bind the same fixed admin or metrics port cannot run side by side. */
function sharedQueueProxyPorts(config: ThawConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const owners = new Map<number, string>();
  config.services.forEach((s, i) => {
    const qp = s.run?.queueProxy;
    if (!qp) return;
    for (const [field, port] of [
      ["adminPort", qp.adminPort],
      ["metricsPort", qp.metricsPort],
    ] as const) {
      const path = `services[${i}].run.queueProxy.${field}`;
      const owner = owners.get(port);
      if (owner !== undefined) {
        issues.push({
          path,
          message: `${port} is already bound by ${owner}; give this queue-proxy other ports (if it can move them)`,
        });
      } else owners.set(port, path);
    }
  });
  return issues;
}

/** Checks that go across entries: unique service identities and unique host/path routes. */
function crossChecks(config: ThawConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const ids = new Map<string, number>();
  const routes = new Map<string, number>();
  for (const [i, s] of config.services.entries()) issues.push(...queueProxyIssues(s, i));
  issues.push(...sharedQueueProxyPorts(config));
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
  // Knative's own rules for the autoscaling keys and the readiness probe run even when the schema failed
  // elsewhere, so one run of `thaw validate` shows every problem.
  const autoscaling = [
    ...unknownKeyIssues(configSchema, input),
    ...autoscalingIssues(input),
    ...readinessIssues(input),
    ...silentBehaviourIssues(input),
    // Schedule overlaps are looked for from now on: the one clock read of validation.
    ...warmIssues(input, Date.now()),
  ];
  if (!result.success) {
    const issues = result.issues
      // Unknown keys come from unknownKeyIssues: all of them, where valibot stops at each object's first.
      .filter((i) => i.expected !== "never")
      .map((i) => ({ path: pathOf(i), message: messageOf(i) }));
    return {
      ok: false,
      issues: [...issues, ...autoscaling.filter((a) => !issues.some((i) => i.path === a.path))],
    };
  }
  const issues = [...crossChecks(result.output), ...autoscaling];
  if (result.output.services.length === 0 && !result.output.containers?.discover) {
    issues.push({
      path: "services",
      message:
        "must list at least one service, or let thaw up find labelled containers with containers: { discover: true }",
    });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: result.output };
}

/** One line per issue, as `thaw validate` prints them. */
export function formatIssues(issues: readonly ConfigIssue[], file?: string): string {
  const where = file ? `${file}: ` : "";
  return issues.map((i) => `${where}${i.path}: ${i.message}`).join("\n");
}
