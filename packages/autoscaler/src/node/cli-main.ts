import { readFile, writeFile } from "node:fs/promises";
import { type Command, helpText, parseCommandLine } from "@thaw/command-line";
import { packageVersion } from "@thaw/command-line/node";
import { parseGoDuration } from "../duration.js";
import type { Issue } from "../issues.js";
import { simulationOptionsFrom } from "../simulator/options.js";
import { formatReport } from "../simulator/report.js";
import { simulate } from "../simulator/simulate.js";
import { renderSvg } from "../simulator/svg.js";
import { parseTrace, type TraceFormat } from "../simulator/trace.js";

/** thaw-simulate's flags, what `--help` prints about them and what the parser accepts. */
export const SIMULATE_CLI: Command = {
  name: "thaw-simulate",
  summary:
    "replays a request trace through Thaw's autoscaler (Knative's KPA: metric windows, decider, scale-to-zero rules) against an idealised pod model, and prints replicas over time, cold starts, time spent queued (p50/p99) and panic periods",
  usage: "--trace <file> --config <file> [flags]",
  flags: [
    { name: "--trace", value: "FILE", help: "request trace, CSV or JSONL (see below) (required)" },
    { name: "--config", value: "FILE", help: "thaw.config.yaml (YAML) or the same as JSON (required)" },
    {
      name: "--service",
      value: "NAME",
      default: "the first",
      help: "service to simulate when the config lists several",
    },
    {
      name: "--format",
      value: "csv|jsonl",
      default: 'guessed: JSONL when the file starts with "{"',
      help: "trace format",
    },
    {
      name: "--startup-delay",
      value: "DURATION",
      default: "simulate.startupDelay, else run.env.STARTUP_DELAY_MS, else 0",
      help: "pod start-up time, a Go duration such as 800ms or 3s",
    },
    { name: "--tick", value: "DURATION", default: "2s, as Knative", help: "decider period" },
    { name: "--initial-replicas", value: "N", default: "0: scaled to zero", help: "ready pods at time 0" },
    {
      name: "--end",
      value: "DURATION",
      default: "when it settles after the trace",
      help: "stop the simulation",
    },
    {
      name: "--start",
      value: "INSTANT",
      default: "simulate.start, else 1970-01-01T00:00:00Z",
      help: "wall-clock time of trace time 0 (ISO 8601), for the service's schedules",
    },
    { name: "--no-schedules", help: "ignore the service's schedules (to compare with them)" },
    {
      name: "--hints",
      value: "FILE",
      help: "trace of wake hints (same formats; each row's arrival sends one), e.g. a login page's hits",
    },
    {
      name: "--hint-ttl",
      value: "DURATION",
      default: "300s",
      help: "how long each wake hint keeps one pod",
    },
    { name: "--svg", value: "FILE", help: "also draw replicas and concurrency over time as an SVG" },
    { name: "--json", help: "print the full result as JSON instead of the text report" },
  ],
  more: `Trace formats (times in milliseconds from the start of the trace, rows in any order):
  CSV    arrival_ms,duration_ms        one request per line; optional header; '#' comments
         0,120
         15.5,80
  JSONL  {"arrivalMs": 0, "durationMs": 120}    one object per line

Config: the thaw.config.yaml keys 'autoscaler:' (Knative config-autoscaler keys) and, per service,
'containerConcurrency' and 'autoscaling:' (autoscaling.knative.dev/* keys without the prefix).
A JSON file may also hold one service object: {"containerConcurrency": 10, "autoscaling": {...}}.
Optional 'simulate: {startupDelay: 2s, tick: 2s, initialReplicas: 0}' at the top level
(thaw validate accepts it too).`,
};

/** The --help text. */
export const HELP = helpText(SIMULATE_CLI);

/** Where the CLI writes; injected so tests capture output. */
export interface CliIo {
  /** Report and help text. */
  out(text: string): void;
  /** Usage and input errors. */
  err(text: string): void;
}

function issuesText(file: string, issues: readonly Issue[]): string {
  return issues.map((i) => `${file}: ${i.path ? `${i.path}: ` : ""}${i.message}\n`).join("");
}

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseCommandLine(SIMULATE_CLI, argv);
  if (args.kind === "help") {
    io.out(HELP);
    return 0;
  }
  if (args.kind === "version") {
    io.out(`thaw-simulate ${packageVersion(import.meta.url)}\n`);
    return 0;
  }
  if (args.kind === "error") {
    io.err(`thaw-simulate: ${args.message}\n`);
    return 2;
  }
  const f = args.flags;
  const v = {
    trace: f["--trace"],
    config: f["--config"],
    service: f["--service"],
    format: f["--format"],
    "startup-delay": f["--startup-delay"],
    tick: f["--tick"],
    "initial-replicas": f["--initial-replicas"],
    end: f["--end"],
    svg: f["--svg"],
    start: f["--start"],
    noSchedules: f["--no-schedules"] === "true",
    hints: f["--hints"],
    hintTtl: f["--hint-ttl"],
    json: f["--json"] === "true",
  };
  if (!v.trace || !v.config) {
    io.err("thaw-simulate: --trace and --config are required\nRun thaw-simulate --help for usage.\n");
    return 2;
  }
  if (v.format !== undefined && v.format !== "csv" && v.format !== "jsonl") {
    io.err(`thaw-simulate: --format must be csv or jsonl, got ${JSON.stringify(v.format)}\n`);
    return 2;
  }
  let traceText: string;
  let configText: string;
  try {
    [traceText, configText] = await Promise.all([readFile(v.trace, "utf8"), readFile(v.config, "utf8")]);
  } catch (e) {
    io.err(`thaw-simulate: ${(e as Error).message}\n`);
    return 2;
  }
  const parseDoc = v.config.endsWith(".json") ? JSON.parse : await loadYaml();
  if (!parseDoc) {
    io.err(
      `thaw-simulate: ${v.config}: reading YAML needs the package 'yaml' (an optional peer dependency of @thaw/autoscaler): run \`npm install yaml\`, or pass the config as a .json file\n`,
    );
    return 2;
  }
  let doc: unknown;
  try {
    doc = parseDoc(configText);
  } catch (e) {
    io.err(
      `${v.config}: not valid ${v.config.endsWith(".json") ? "JSON" : "YAML"}: ${(e as Error).message}\n`,
    );
    return 2;
  }
  const opts = simulationOptionsFrom(doc, v.service);
  if (!opts.ok) {
    io.err(issuesText(v.config, opts.issues));
    return 2;
  }
  const flagIssues: Issue[] = [];
  const dur = (flag: string, text: string | undefined): number | undefined => {
    if (text === undefined) return undefined;
    const ms = parseGoDuration(text);
    if (ms === undefined || ms < 0)
      flagIssues.push({ path: flag, message: "must be a Go duration such as 2s" });
    return ms;
  };
  const startup = dur("--startup-delay", v["startup-delay"]);
  const tick = dur("--tick", v.tick);
  const end = dur("--end", v.end);
  const hintTtl = dur("--hint-ttl", v.hintTtl) ?? 300_000;
  const start = v.start === undefined ? undefined : Date.parse(v.start);
  if (start !== undefined && !Number.isFinite(start)) {
    flagIssues.push({ path: "--start", message: "must be an ISO 8601 instant such as 2026-12-07T06:00:00Z" });
  }
  if (tick !== undefined && tick <= 0) flagIssues.push({ path: "--tick", message: "must be positive" });
  let initial: number | undefined;
  if (v["initial-replicas"] !== undefined) {
    initial = Number(v["initial-replicas"]);
    if (!Number.isInteger(initial) || initial < 0) {
      flagIssues.push({ path: "--initial-replicas", message: "must be a whole number ≥ 0" });
    }
  }
  if (flagIssues.length > 0) {
    io.err(issuesText("thaw-simulate", flagIssues));
    return 2;
  }
  const o = opts.value;
  if (startup !== undefined) o.startupDelayMs = startup;
  if (tick !== undefined) o.tickMs = tick;
  if (end !== undefined) o.endMs = end;
  if (initial !== undefined) o.initialReplicas = initial;
  if (start !== undefined) o.startEpochMs = start;
  if (v.noSchedules) delete o.schedules;
  if (v.hints) {
    let hintText: string;
    try {
      hintText = await readFile(v.hints, "utf8");
    } catch (e) {
      io.err(`thaw-simulate: ${(e as Error).message}\n`);
      return 2;
    }
    const hints = parseTrace(hintText, v.format as TraceFormat | undefined);
    if (!hints.ok) {
      io.err(issuesText(v.hints, hints.issues));
      return 2;
    }
    o.hints = hints.value.map((h) => h.arrivalMs);
    o.hintTtlMs = hintTtl;
  }
  const trace = parseTrace(traceText, v.format as TraceFormat | undefined);
  if (!trace.ok) {
    io.err(issuesText(v.trace, trace.issues));
    return 2;
  }
  const result = simulate(trace.value, o);
  io.out(v.json ? `${JSON.stringify(result, null, 2)}\n` : formatReport(result));
  if (v.svg) {
    await writeFile(v.svg, renderSvg(result, `thaw-simulate: ${v.trace}`));
    if (!v.json) io.out(`SVG written to ${v.svg}\n`);
  }
  return 0;
}

/** The `parse` of the optional peer `yaml`, or undefined when it is not installed (JSON configs need none). */
async function loadYaml(): Promise<((text: string) => unknown) | undefined> {
  try {
    return (await import("yaml")).parse;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw e;
  }
}
