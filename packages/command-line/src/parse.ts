import { closest } from "./closest.js";
import { BUILT_IN_FLAGS, type Command, type Flag, type Parsed } from "./spec.js";

function unknown(kind: string, given: string, known: Iterable<string>, command: Command): Parsed {
  const near = closest(given, known);
  const hint = near ? `did you mean ${near}?` : `see ${command.name} --help`;
  return { kind: "error", message: `unknown ${kind} ${given} (${hint})` };
}

/**
 * Reads `argv` against a command's table: `--flag value`, `--flag=value`, `-f value`, switches, `--` ending
 * the flags, `--help`/`-h` and `--version` anywhere before it. The first problem ends the reading, as one
 * message naming the argument (and, for a typo, the nearest known flag or command).
 */
export function parseCommandLine(command: Command, argv: readonly string[]): Parsed {
  const byName = new Map<string, Flag>();
  for (const f of [...command.flags, ...BUILT_IN_FLAGS]) {
    byName.set(f.name, f);
    if (f.short) byName.set(f.short, f);
  }
  const flags: Record<string, string> = {};
  const all: Record<string, string[]> = {};
  const set = (name: string, value: string) => {
    flags[name] = value;
    const values = all[name];
    if (values) values.push(value);
    else all[name] = [value];
  };
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      if (command.commands) {
        if (!command.commands.some((c) => c.name === arg)) {
          return unknown(
            "command",
            arg,
            command.commands.map((c) => c.name),
            command,
          );
        }
        return { kind: "ok", flags, all, positionals, command: { name: arg, argv: argv.slice(i + 1) } };
      }
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const given = eq === -1 ? arg : arg.slice(0, eq);
    const flag = byName.get(given);
    if (!flag) return unknown("flag", given, byName.keys(), command);
    if (flag.name === "--help") return { kind: "help" };
    if (flag.name === "--version") return { kind: "version" };
    if (eq !== -1) {
      set(flag.name, arg.slice(eq + 1));
      continue;
    }
    if (!flag.value) {
      set(flag.name, "true");
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || (next.startsWith("--") && next.length > 2)) {
      return { kind: "error", message: `${given} needs a value (${flag.value})` };
    }
    set(flag.name, next);
    i++;
  }
  const max = command.maxPositionals ?? 0;
  if (positionals.length > max) {
    return { kind: "error", message: `unexpected argument ${positionals[max]} (see ${command.name} --help)` };
  }
  return { kind: "ok", flags, all, positionals };
}

/**
 * The variables a command reads, with each flag given laid over its variable: flags win over the
 * environment, so the reading code works on variable names alone.
 */
export function withFlagsOverEnv(
  command: Command,
  flags: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = { ...env };
  for (const f of command.flags) {
    const given = flags[f.name];
    if (f.env && given !== undefined) out[f.env] = given;
  }
  return out;
}
