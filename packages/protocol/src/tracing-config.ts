import type { Issue } from "./activation-api.js";

/** Where and how spans go once tracing is on; read once at an entry point from OpenTelemetry's env vars. */
export interface TracingConfig {
  /** `otlp`: OTLP/HTTP (JSON) to {@link TracingConfig.url}; `console`: one object per span on stdout. */
  exporter: "otlp" | "console";
  /** The OTLP/HTTP traces URL (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`). */
  url: string;
  /** `service.name` of every span (`OTEL_SERVICE_NAME`, else the component's own name). */
  serviceName: string;
  /** Share of new traces recorded, 0 to 1 (`OTEL_TRACES_SAMPLER=traceidratio` with `OTEL_TRACES_SAMPLER_ARG`). */
  sampleRatio: number;
}

/** OTLP/HTTP's default collector address (the OpenTelemetry specification's default). */
export const DEFAULT_OTLP_ENDPOINT = "http://localhost:4318";

/** The result of {@link parseTracingEnv}: null = tracing off. */
export type TracingConfigResult = { ok: true; value: TracingConfig | null } | { ok: false; issues: Issue[] };

/**
 * Reads OpenTelemetry's standard env vars. Tracing is off unless `OTEL_TRACES_EXPORTER` names an exporter
 * or `enable` is set (a `--tracing` flag, which means `otlp` when the variable is unset); `OTEL_SDK_DISABLED=true`
 * turns it off whatever else is set. Parent-based samplers are refused: they let a client's `traceparent`
 * decide what is recorded.
 */
export function parseTracingEnv(
  env: Readonly<Record<string, string | undefined>>,
  defaults: { serviceName: string; enable?: boolean },
): TracingConfigResult {
  if ((env.OTEL_SDK_DISABLED ?? "").trim().toLowerCase() === "true") return { ok: true, value: null };
  const issues: Issue[] = [];
  const named = (env.OTEL_TRACES_EXPORTER ?? "").trim().toLowerCase();
  const exporter = named === "" ? (defaults.enable ? "otlp" : "none") : named;
  if (exporter !== "otlp" && exporter !== "console" && exporter !== "none") {
    issues.push({
      path: "OTEL_TRACES_EXPORTER",
      message: `"${env.OTEL_TRACES_EXPORTER}" is not supported: use otlp, console or none`,
    });
  }
  const url = tracesUrl(env, issues);
  const sampleRatio = sampler(env, issues);
  const serviceName = (env.OTEL_SERVICE_NAME ?? "").trim() || defaults.serviceName;
  if (issues.length > 0) return { ok: false, issues };
  if (exporter === "none") return { ok: true, value: null };
  return { ok: true, value: { exporter: exporter as "otlp" | "console", url, serviceName, sampleRatio } };
}

function tracesUrl(env: Readonly<Record<string, string | undefined>>, issues: Issue[]): string {
  const own = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? "").trim();
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? "").trim();
  const [path, raw] = own
    ? ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", own]
    : ["OTEL_EXPORTER_OTLP_ENDPOINT", base || DEFAULT_OTLP_ENDPOINT];
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    issues.push({ path, message: `"${raw}" is not a URL: use e.g. http://127.0.0.1:4318` });
    return "";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    issues.push({ path, message: `"${raw}" must be an http:// or https:// URL` });
    return "";
  }
  // The specification: the per-signal variable is used as is, the base one gets the signal's path.
  return own ? parsed.href : `${parsed.href.replace(/\/+$/, "")}/v1/traces`;
}

function sampler(env: Readonly<Record<string, string | undefined>>, issues: Issue[]): number {
  const name = (env.OTEL_TRACES_SAMPLER ?? "").trim().toLowerCase();
  if (name === "" || name === "always_on") return 1;
  if (name === "always_off") return 0;
  if (name === "traceidratio") {
    const arg = (env.OTEL_TRACES_SAMPLER_ARG ?? "1").trim();
    const ratio = Number(arg);
    if (arg === "" || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
      issues.push({ path: "OTEL_TRACES_SAMPLER_ARG", message: `"${arg}" must be a number from 0 to 1` });
      return 1;
    }
    return ratio;
  }
  issues.push({
    path: "OTEL_TRACES_SAMPLER",
    message: `"${env.OTEL_TRACES_SAMPLER}" is not supported: use always_on, always_off or traceidratio (parent-based samplers would let a client's traceparent decide what is recorded)`,
  });
  return 1;
}

/** The OpenTelemetry variables {@link parseTracingEnv} reads, as every bin's `--help` lists them. */
export const TRACING_ENV_VARS: readonly { name: string; default?: string; help: string }[] = [
  {
    name: "OTEL_TRACES_EXPORTER",
    default: "none",
    help: "otlp, console or none: where spans go (docs/tracing.md)",
  },
  {
    name: "OTEL_EXPORTER_OTLP_ENDPOINT",
    default: DEFAULT_OTLP_ENDPOINT,
    help: "OTLP/HTTP collector (+ /v1/traces)",
  },
  { name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", help: "OTLP/HTTP traces URL, used as is" },
  { name: "OTEL_SERVICE_NAME", help: "service.name of the spans (default: the component's name)" },
  { name: "OTEL_TRACES_SAMPLER", default: "always_on", help: "always_on, always_off or traceidratio" },
  { name: "OTEL_TRACES_SAMPLER_ARG", default: "1", help: "share of traces kept with traceidratio, 0 to 1" },
  { name: "OTEL_SDK_DISABLED", default: "false", help: "true turns tracing off whatever else is set" },
];
