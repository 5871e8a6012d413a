// The command line of a bench (`node bench/run.mjs` in its workspace): `--help` lists what it does, its
// flags and every variable it reads, with the variables all benches share added at the end; an unknown
// flag or argument is refused in one line (exit 2). Both before the bench does any work: call it first.
//
//   const { flags } = benchCommandLine(import.meta.url, {
//     name: "node bench/run.mjs",
//     summary: "@thaw/queue-proxy: ...",
//     flags: [{ name: "--runs", value: "N", default: "1", help: "runs, each printed" }],
//     env: [{ name: "KN_QUEUE_BIN", help: "Knative's queue-proxy binary (off: none)" }],
//   });
import { readCommandLine } from "@thaw/command-line/node";

/**
 * The variables every bench reads through bench-kit (verdict.mjs, profile.mjs) or honours
 * (THAW_BENCH_QUICK), as `--help` lists them.
 * @type {readonly import("@thaw/command-line").EnvVar[]}
 */
export const BENCH_ENV = [
  { name: "THAW_BENCH_QUICK", help: "1 = shorter runs (fewer rounds and seconds), for a quick look" },
  {
    name: "THAW_BENCH_PROFILE",
    default: "miss",
    help: "miss = profile what missed its target, always, or never (where the bench profiles)",
  },
  {
    name: "THAW_BENCH_PROFILE_DIR",
    default: "<repo>/bench-results/profiles",
    help: "where CPU profiles and heap snapshots are written",
  },
  {
    name: "THAW_BENCH_VERDICTS",
    default: "<repo>/bench-results/verdicts.jsonl",
    help: "the file each PASS/MISS verdict is appended to as a JSON line",
  },
];

/**
 * Reads a bench's command line (`process.argv`) against its table, with {@link BENCH_ENV} added to its
 * variables (a bench's own entry of the same name replaces the shared one, to say what it does there),
 * and answers what needs no more: `--help` and `--version` (exit 0), a mistake (one line on stderr,
 * exit 2). Returns the flags by long name (a switch given bare is `"true"`) and the positionals.
 * @param {string | URL} from the bench's `import.meta.url` (its package's version for `--version`)
 * @param {{ name: string, summary: string, usage?: string,
 *   flags?: readonly import("@thaw/command-line").Flag[], env?: readonly import("@thaw/command-line").EnvVar[],
 *   maxPositionals?: number, more?: string }} command
 * @returns {{ flags: Record<string, string>, positionals: string[] }}
 */
export function benchCommandLine(from, command) {
  const own = command.env ?? [];
  /** @type {import("@thaw/command-line").Command} */
  const table = {
    ...command,
    flags: command.flags ?? [],
    env: [...own, ...BENCH_ENV.filter((e) => !own.some((o) => o.name === e.name))],
  };
  const { flags, positionals } = readCommandLine(table, process.argv.slice(2), from);
  return { flags, positionals };
}
