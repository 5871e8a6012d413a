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
): { flags: Record<string, string>; positionals: string[]; command?: { name: string; argv: string[] } } {
  const parsed = parseCommandLine(command, argv);
  if (parsed.kind === "help") {
    writeSync(1, helpText(command));
    process.exit(0);
  }
  if (parsed.kind === "version") {
    // `thaw up` -> thaw; a repository script (`npm run images --`) keeps its script name.
    const who = command.name.startsWith("npm ")
      ? command.name.replace(/ --$/, "")
      : command.name.split(" ")[0];
    writeSync(1, `${who} ${packageVersion(from)}\n`);
    process.exit(0);
  }
  if (parsed.kind === "error") exitWithUsageError(command.name, parsed.message);
  return parsed;
}

/** One line `<command>: <message>` on stderr and exit 2: the status of a command-line mistake. */
export function exitWithUsageError(commandName: string, message: string): never {
  writeSync(2, `${commandName}: ${message}\n`);
  process.exit(2);
}
