import { existsSync, readFileSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { helpText } from "../help.js";
import { parseCommandLine } from "../parse.js";
import type { Command } from "../spec.js";

/** The `version` of the package that holds `from` (the nearest package.json above it). */
export function packageVersion(from: string | URL): string {
  let dir = dirname(fileURLToPath(from));
  for (;;) {
    const file = join(dir, "package.json");
    if (existsSync(file)) return String(JSON.parse(readFileSync(file, "utf8")).version ?? "unknown");
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
}

/**
 * Reads a bin's command line and answers what needs no more: `--help` (exit 0), `--version` (exit 0), a
 * mistake (one line on stderr, exit 2). Returns the flags and positionals otherwise. `from` is the caller's
 * `import.meta.url`, to find its package's version. Synchronous writes, so nothing is lost at exit.
 */
export function readCommandLine(
  command: Command,
  argv: readonly string[],
  from: string | URL,
): {
  flags: Record<string, string>;
  all: Record<string, string[]>;
  positionals: string[];
  command?: { name: string; argv: string[] };
} {
  const parsed = parseCommandLine(command, argv);
  if (parsed.kind === "help") {
    writeSync(1, helpText(command));
    process.exit(0);
  }
  if (parsed.kind === "version") {
    writeSync(1, `${programName(command.name)} ${packageVersion(from)}\n`);
    process.exit(0);
  }
  if (parsed.kind === "error") exitWithUsageError(command.name, parsed.message);
  return parsed;
}

/**
 * What `--version` names: a bin's first word (`thaw up` -> thaw), or, for a command started through a
 * launcher (`npm run images --`, `node bench/run.mjs`), the whole command without npm's trailing `--`.
 */
function programName(commandName: string): string {
  const first = commandName.split(" ")[0] as string;
  return first === "npm" || first === "node" ? commandName.replace(/ --$/, "") : first;
}

/** One line `<command>: <message>` on stderr and exit 2: the status of a command-line mistake. */
export function exitWithUsageError(commandName: string, message: string): never {
  writeSync(2, `${commandName}: ${message}\n`);
  process.exit(2);
}
