#!/usr/bin/env -S node --min-semi-space-size=8 --max-semi-space-size=8 --initial-old-space-size=8
/**
 * thaw-queue-proxy: the pod sidecar, configured only by Knative's environment variables (knative-spec.md
 * c.2) plus a few THAW_* knobs documented in the README.
 *
 * The V8 flags on the first line keep a sidecar's heap small: with V8's defaults the young generation grows
 * to 2 x 16 MB under load and the old generation's first collection waits for ~30 MB, which put RSS near
 * 100 MB at 256 connections; with these it stays under 80 MB at the same CPU per request (measured with
 * bench/run.mjs). Neither is a hard cap, so a larger live heap still fits.
 */
import { readCommandLine } from "@thaw/command-line/node";
import { QUEUE_PROXY_CLI } from "./cli-spec.js";

// --help and --version are answered before the environment is checked or the proxy is loaded.
readCommandLine(QUEUE_PROXY_CLI, process.argv.slice(2), import.meta.url);
const { systemClock } = await import("@thaw/clock");
const { formatTracingIssues, tracingFromEnv } = await import("@thaw/protocol/otel");
const { formatIssues, parseConfig } = await import("./config.js");
const { startQueueProxy } = await import("./queue-proxy.js");
const { readiness } = await import("./readiness.js");
const { readSpareEnv, SPARE_ENV, SPARE_WAITING_LINE } = await import("./spare.js");
const { warmRequestPath } = await import("./warm-up.js");

/** The JSON request log on stdout (c.7). */
async function createRequestLog() {
  const { pino } = await import("pino");
  return pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * Spare mode (THAW_QUEUE_PROXY_SPARE=1): a supervisor starts the process ahead of a pod, so the module
 * loading (most of a cold queue-proxy's start-up) is done before the pod exists, and the request path has
 * run (warm-up.ts) before the pod's first request; the pod's env arrives as one JSON line on stdin and is
 * laid over the inherited one. Stdin closing first means the supervisor is gone: exit quietly.
 */
async function adoptSpareEnv(): Promise<boolean> {
  if (process.env[SPARE_ENV] !== "1") return false;
  // Before the title: a process titled thaw-spare-qp is warm and has nothing bound (its env may wait in
  // the pipe meanwhile). Bounded, and a failure only means a colder first request.
  await warmRequestPath();
  // A waiting spare is no pod's queue-proxy yet: `ps` (and /proc/<pid>/cmdline) tell them apart.
  process.title = "thaw-spare-qp";
  process.stdout.write(`${SPARE_WAITING_LINE}\n`);
  const got = await readSpareEnv(process.stdin);
  if (got === undefined) process.exit(0);
  if (!got.ok) {
    process.stderr.write(`thaw-queue-proxy: ${got.error}\n`);
    process.exit(1);
  }
  // The pipe stays open (the supervisor holds it); it must not keep this process alive or be read again.
  process.stdin.pause();
  (process.stdin as { unref?: () => void }).unref?.();
  Object.assign(process.env, got.env);
  // Now a pod's queue-proxy (the title is cut to the original command line's length if longer).
  process.title = `thaw-queue-proxy ${process.env["SERVING_POD"] ?? ""}`.trim();
  return true;
}

async function main(): Promise<void> {
  const warm = await adoptSpareEnv();
  const parsed = parseConfig(process.env);
  if (!parsed.ok) {
    process.stderr.write(`${formatIssues(parsed.issues)}\n`);
    process.exit(1);
  }
  const config = parsed.value;
  const probe = readiness(config);
  if ("error" in probe) {
    process.stderr.write(`${probe.error}\n`);
    process.exit(1);
  }
  // OTEL_TRACES_EXPORTER etc. (docs/tracing.md): the SDK is loaded only when tracing is on.
  const tracing = await tracingFromEnv(process.env, { serviceName: "thaw-queue-proxy" });
  if (!tracing.ok) {
    process.stderr.write(`${formatTracingIssues(tracing.issues).replace(/^/gm, "thaw-queue-proxy: ")}\n`);
    process.exit(1);
  }
  const tracer = tracing.value?.tracer;
  // pino is loaded only when the request log is on: importing it costs ~9 MB of RSS in every pod.
  const requestLog = config.requestLog ? await createRequestLog() : null;
  let qp: Awaited<ReturnType<typeof startQueueProxy>>;
  try {
    qp = await startQueueProxy(config, {
      clock: systemClock,
      prober: probe.prober,
      requestLog,
      ...(tracer ? { tracer } : {}),
    });
  } catch (err) {
    // A port in use or a mounted certificate that cannot be loaded: one line, not a stack trace.
    process.stderr.write(`thaw-queue-proxy: cannot start: ${(err as Error).message}\n`);
    process.exit(1);
  }
  // One machine-readable line so supervisors and tests learn the bound ports.
  process.stderr.write(`${JSON.stringify({ msg: "thaw-queue-proxy listening", ...qp.ports })}\n`);
  // A pod's queue-proxy listens well before its app (0.5 s on a real node, where the kubelet starts the
  // containers together): that wait runs the request path once, as a spare does before its pod, so the
  // cold request that woke the pod does not wait for V8 to compile the forward and the answer (this
  // process's part of that request took 7-20 ms on a real node before, 2-5 ms after: README, "One file").
  // One line when it ends, so a pod's log shows what it cost (and that it did not fail).
  if (!warm) {
    const t0 = performance.now();
    void warmRequestPath().then((ok) =>
      process.stderr.write(
        `${JSON.stringify({ msg: "thaw-queue-proxy request path warmed", ok, ms: Math.round(performance.now() - t0) })}\n`,
      ),
    );
  }
  let stopping = false;
  process.on("SIGTERM", () => {
    if (stopping) return;
    stopping = true;
    qp.shutdown().then(
      async () => {
        // The last batch of spans goes out before the process ends.
        await tracing.value?.shutdown().catch(() => {});
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`thaw-queue-proxy: shutdown failed: ${String(err)}\n`);
        process.exit(1);
      },
    );
  });
  process.on("SIGINT", () => process.exit(0));
}

void main();
