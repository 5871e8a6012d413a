/** One flag of a command line: what `--help` prints about it and how it is read. */
export interface Flag {
  /** The long form, `--port`. */
  name: string;
  /** A one-letter form, `-c`. */
  short?: string;
  /** Placeholder of its value (`PORT`); a flag without one is a switch (`--verbose`, or `--verbose=false`). */
  value?: string;
  /** The environment variable it overrides, when it has one. */
  env?: string;
  /** The value used when neither the flag nor its variable is given, as `--help` shows it. */
  default?: string;
  /** One line: what it does. */
  help: string;
}

/** An environment variable a command reads that no flag sets. */
export interface EnvVar {
  name: string;
  default?: string;
  help: string;
}

/** A command's table: everything its `--help` prints and its parser accepts. */
export interface Command {
  /** As typed: `thaw-activator`, `thaw up`. */
  name: string;
  /** What it does, a sentence or two. */
  summary: string;
  /** What follows the name in the usage line (default `[flags]`). */
  usage?: string;
  flags: readonly Flag[];
  env?: readonly EnvVar[];
  /** Subcommands: the first positional must name one, and the rest of the line is theirs. */
  commands?: readonly { name: string; summary: string }[];
  /** Positional arguments accepted (default 0); more is an error naming the first extra one. */
  maxPositionals?: number;
  /** Text printed after the tables (examples, formats). */
  more?: string;
}

/** The flags every command answers besides its own. */
export const BUILT_IN_FLAGS: readonly Flag[] = [
  { name: "--help", short: "-h", help: "print this help and exit" },
  { name: "--version", help: "print the version and exit" },
];

/** The result of reading a command line against its table. */
export type Parsed =
  | { kind: "help" }
  | { kind: "version" }
  | { kind: "error"; message: string }
  | {
      kind: "ok";
      /** By long name (`--port`); a switch given bare is `"true"`; a flag given twice, its last value. */
      flags: Record<string, string>;
      /** Every value of each flag given, in order (for a flag that may be repeated, `--filter a --filter b`). */
      all: Record<string, string[]>;
      positionals: string[];
      /** With `commands`: the subcommand named and the arguments after it. */
      command?: { name: string; argv: string[] };
    };
