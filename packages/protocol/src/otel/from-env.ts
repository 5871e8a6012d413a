import type { Issue } from "../activation-api.js";
import { parseTracingEnv } from "../tracing-config.js";
import { type RunningTracing, type StartTracingOptions, startTracing } from "./start-tracing.js";

/** Tracing as an entry point reads it: null = off (nothing loaded), or the issues that stop the start. */
export type TracingFromEnv = { ok: true; value: RunningTracing | null } | { ok: false; issues: Issue[] };

/**
 * Reads OpenTelemetry's env vars ({@link parseTracingEnv}) and, only when tracing is on, loads the SDK.
 * Importing this module loads no `@opentelemetry/*` package; a tracer exists only once this returns one.
 */
export async function tracingFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  defaults: { serviceName: string; enable?: boolean },
  o: StartTracingOptions = {},
): Promise<TracingFromEnv> {
  const parsed = parseTracingEnv(env, defaults);
  if (!parsed.ok) return parsed;
  if (parsed.value === null) return { ok: true, value: null };
  try {
    return { ok: true, value: await startTracing(parsed.value, o) };
  } catch (err) {
    // The SDK packages are optional peers: say which to install instead of a resolution stack trace.
    return {
      ok: false,
      issues: [
        {
          path: "OTEL_TRACES_EXPORTER",
          message: `tracing is on but the OpenTelemetry SDK could not be loaded (${(err as Error).message}): install @opentelemetry/api, @opentelemetry/core, @opentelemetry/resources, @opentelemetry/sdk-trace-base and @opentelemetry/exporter-trace-otlp-http, or unset it`,
        },
      ],
    };
  }
}

/** One line per issue, `tracing: <variable>: <message>`, for an entry point's stderr. */
export function formatTracingIssues(issues: readonly Issue[]): string {
  return issues.map((i) => `tracing: ${i.path}: ${i.message}`).join("\n");
}
