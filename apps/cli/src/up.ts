import { dirname, resolve } from "node:path";
import { logDashboardRecords, pinoLogger, SCALE_WEBHOOK_SECRET_ENV } from "@thaw/autoscaler-service";
import { formatIssues, type ThawConfig } from "@thaw/config";
import { checkScaleSecret } from "@thaw/protocol";
import { formatTracingIssues, tracingFromEnv } from "@thaw/protocol/otel";
import { formatRecord } from "./format.js";
import { type Stack, startStack } from "./stack.js";
import { loadAndCheck } from "./validate.js";
import { warmUp } from "./warm-up.js";

/** How long `thaw up` waits at start-up for its spares before it says it listens. */
const SPARES_WAIT_MS = 2000;

/** `p`, or nothing after `ms`. */
function boundedWait(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([p.then(() => {}), bound]).finally(() => clearTimeout(timer));
}

/** Set to `0`, `thaw up` skips its start-up warm-up (warm-up.ts). */
export const WARM_UP_ENV = "THAW_UP_WARM_UP";
/** Set to `1`, `thaw up` prints debug lines on stderr (so far: why a start-up warm-up failed). */
export const DEBUG_ENV = "THAW_UP_DEBUG";

/** Options of {@link upCommand}. */
export interface UpOptions {
  config: string;
  /** Print pod output too. */
  verbose?: boolean;
  /** `text` (default): readable lines; `json`: one pino JSON line per scale event and cold start. */
  logFormat?: "text" | "json";
  /** `--tracing`: spans over OTLP/HTTP even when OTEL_TRACES_EXPORTER is unset (docs/tracing.md). */
  tracing?: boolean;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

/**
 * `thaw up`: validates the config, starts the stack, prints the URLs and one line per scale event, and on
 * SIGINT/SIGTERM drains and stops everything. Resolves with the exit code once nothing is left running.
 */
export async function upCommand(opts: UpOptions): Promise<number> {
  const out = opts.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = opts.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const loaded = await loadAndCheck(opts.config);
  if (!loaded.ok) {
    err(formatIssues(loaded.issues, opts.config));
    return 1;
  }
  const secret = process.env[SCALE_WEBHOOK_SECRET_ENV] || undefined;
  const bad = secret === undefined ? undefined : checkScaleSecret(secret, SCALE_WEBHOOK_SECRET_ENV);
  if (bad) {
    err(`thaw up: ${bad.path} ${bad.message}`);
    return 1;
  }
  // OTEL_TRACES_EXPORTER etc., or --tracing: the SDK is loaded only when tracing is on.
  const tracing = await tracingFromEnv(process.env, {
    serviceName: "thaw-up",
    enable: opts.tracing === true,
  });
  if (!tracing.ok) {
    err(formatTracingIssues(tracing.issues).replace(/^/gm, "thaw up: "));
    return 1;
  }
  const traced = tracing.value;
  let stack: Stack;
  try {
    stack = await startStack(loaded.config, loaded.services, {
      baseDir: dirname(resolve(opts.config)),
      waitingPages: loaded.pages,
      ...(traced ? { tracer: traced.tracer, baseEnv: podTracingEnv(process.env) } : {}),
      ...(secret ? { scaleWebhookSecret: secret } : {}),
      ...(opts.verbose ? { onPodOutput: (_rev, pod, c, line) => err(`  [${pod} ${c}] ${line}`) } : {}),
    });
  } catch (e) {
    err(`thaw up: ${(e as Error).message}`);
    return 1;
  }
  const base = stack.url;
  // The gateway already listens. Before the listening line: one cold start through a throwaway in-process
  // copy of the stack, so the first real cold start does not also pay for compiling the request path
  // (a bounded wait: its answer, not its copy's close, which goes on in the background).
  const warming =
    process.env[WARM_UP_ENV] === "0"
      ? { answered: Promise.resolve(), closed: Promise.resolve() }
      : warmUp(process.env[DEBUG_ENV] === "1" ? { debug: (l) => err(`thaw up: ${l}`) } : {});
  await warming.answered;
  // And the spare queue-proxy and app launcher warm and waiting (the queue-proxy's own warm-up ends some
  // 100-250 ms after thaw up's here), so a cold start right after the listening line does not share the CPU
  // with a booting spare. Bounded too.
  await boundedWait(stack.scaler.sparesWaiting(), SPARES_WAIT_MS);
  // Both formats come from the dashboard's records, so the terminal, the logs and the page agree.
  if (opts.logFormat === "json") {
    const logger = pinoLogger({ write: (line: string) => out(line.replace(/\n$/, "")) });
    logger.info("thaw up listening", {
      url: base,
      dashboard: `${base}/_thaw/`,
      config: opts.config,
      tracing: traced != null,
    });
    // What happened before this line (a min-scale service's first pods) is logged too.
    logDashboardRecords(stack.feed, logger);
  } else {
    // tracingFromEnv gives null when tracing is off.
    banner(out, base, opts.config, loaded.config, secret, traced != null);
    stack.feed.records((e) => {
      const line = formatRecord(e);
      if (line) out(line);
    });
  }
  return new Promise<number>((resolve) => {
    let signals = 0;
    const stop = (sig: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        err(`thaw up: ${sig} again, killing every pod now`);
        process.exit(130);
      }
      err(`thaw up: ${sig}: finishing accepted requests, draining pods…`);
      // The warm-up is bounded (2 s) and closes its own copy of the stack.
      Promise.all([warming.closed, stack.close()]).then(
        async () => {
          await traced?.shutdown().catch(() => {});
          err("thaw up: stopped; no pod left running");
          resolve(0);
        },
        (e: unknown) => {
          err(`thaw up: stop failed: ${String(e)}`);
          resolve(1);
        },
      );
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** The readable start-up lines: where everything is, and one curl per host. */
function banner(
  out: (line: string) => void,
  base: string,
  file: string,
  config: ThawConfig,
  secret: string | undefined,
  traced: boolean,
): void {
  out(`thaw up: gateway on ${base}  (config ${file})`);
  out(`  dashboard     ${base}/_thaw/  (live stream ${base}/_thaw/api/stream)`);
  out(`  status API    ${base}/_thaw/api/revisions`);
  out(`  forward-auth  ${base}/_thaw/auth/{nginx,traefik,envoy}`);
  if (secret) out(`  scale webhook ${base}/v1/scale  (signed with ${SCALE_WEBHOOK_SECRET_ENV})`);
  if (config.token) {
    out(
      "  token         set: the page asks for it once; the API, forward-auth and /v1 need Authorization: Bearer",
    );
  }
  for (const s of config.services) {
    for (const host of s.hosts) {
      out(`  ${s.namespace}/${s.name}  curl -H 'Host: ${host}' ${base}${s.paths[0] ?? "/"}`);
    }
  }
  if (traced) out("  tracing       on: spans of the gateway and every pod's queue-proxy (docs/tracing.md)");
  const kept = config.services.flatMap((s) => {
    const raw = s.autoscaling["min-scale"] ?? s.autoscaling["autoscaling.knative.dev/min-scale"];
    const min = Number(raw ?? 0);
    return min > 0 ? [`${s.namespace}/${s.name} (min-scale: ${min})`] : [];
  });
  const rest = kept.length === config.services.length ? "" : "; every other service starts scaled to zero";
  out(
    kept.length === 0
      ? "Every service starts scaled to zero. Ctrl-C drains and stops everything."
      : `Kept running from the start by min-scale: ${kept.join(", ")}${rest}. Ctrl-C drains and stops everything.`,
  );
}

/**
 * The pods' environment with tracing on: their queue-proxies export like the gateway (`--tracing` alone
 * means OTLP), under their own service name.
 */
export function podTracingEnv(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  return {
    ...env,
    OTEL_TRACES_EXPORTER: env.OTEL_TRACES_EXPORTER?.trim() || "otlp",
    OTEL_SERVICE_NAME: "thaw-queue-proxy",
  };
}
