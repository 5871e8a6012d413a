import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { parseGoDuration } from "../duration.js";
import type { Issue } from "../issues.js";
import { simulationOptionsFrom } from "../simulator/options.js";
import { formatReport } from "../simulator/report.js";
import { simulate } from "../simulator/simulate.js";
import { renderSvg } from "../simulator/svg.js";
import { parseTrace, type TraceFormat } from "../simulator/trace.js";

/** The --help text. */
export const HELP = `Usage: thaw-simulate --trace <file> --config <file> [options]

Replays a request trace through Thaw's autoscaler (Knative's KPA: metric windows, decider,
scale-to-zero rules) against an idealised pod model, and prints replicas over time, cold starts,
time spent queued (p50/p99) and panic periods.

Options:
  --trace <file>          request trace, CSV or JSONL (see below)                      (required)
  --config <file>         thaw.config.yaml (YAML) or the same as JSON                  (required)
  --service <name>        service to simulate when the config lists several (default: the first)
  --format <csv|jsonl>    trace format (default: guessed, JSONL when the file starts with "{")
  --startup-delay <dur>   pod start-up time, Go duration such as 800ms or 3s; overrides the config
                          (simulate.startupDelay, else the service's run.env.STARTUP_DELAY_MS, else 0)
  --tick <dur>            decider period (default 2s, as Knative)
  --initial-replicas <n>  ready pods at time 0 (default 0: the service starts scaled to zero)
  --end <dur>             stop the simulation at this time (default: when it settles after the trace)
  --svg <file>            also draw replicas and concurrency over time as an SVG
  --json                  print the full result as JSON instead of the text report
  -h, --help              show this help

Trace formats (times in milliseconds from the start of the trace, rows in any order):
  CSV    arrival_ms,duration_ms        one request per line; optional header; '#' comments
         0,120
         15.5,80
  JSONL  {"arrivalMs": 0, "durationMs": 120}    one object per line

Config: the thaw.config.yaml keys 'autoscaler:' (Knative config-autoscaler keys) and, per service,
'containerConcurrency' and 'autoscaling:' (autoscaling.knative.dev/* keys without the prefix).
A JSON file may also hold one service object: {"containerConcurrency": 10, "autoscaling": {...}}.
Optional 'simulate: {startupDelay: 2s, tick: 2s, initialReplicas: 0}' at the top level.
`;

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
  let args: ReturnType<typeof parseCliArgs>;
  try {
    args = parseCliArgs(argv);
  } catch (e) {
    io.err(`thaw-simulate: ${(e as Error).message}\nRun thaw-simulate --help for usage.\n`);
    return 2;
  }
  const v = args.values;
  if (v.help) {
    io.out(HELP);
    return 0;
  }
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

function parseCliArgs(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      trace: { type: "string" },
      config: { type: "string" },
      service: { type: "string" },
      format: { type: "string" },
      "startup-delay": { type: "string" },
      tick: { type: "string" },
      "initial-replicas": { type: "string" },
      end: { type: "string" },
      svg: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
}
