import { BUILT_IN_FLAGS, type Command, type Flag } from "./spec.js";

function table(rows: readonly [string, string][]): string[] {
  const width = Math.min(34, Math.max(...rows.map(([left]) => left.length)));
  return rows.map(([left, right]) =>
    left.length > width ? `  ${left}\n  ${" ".repeat(width)}  ${right}` : `  ${left.padEnd(width)}  ${right}`,
  );
}

function flagRow(f: Flag): [string, string] {
  const left = `${f.short ? `${f.short}, ` : ""}${f.name}${f.value ? ` ${f.value}` : ""}`;
  const notes = [
    f.default !== undefined ? `default: ${f.default === "" ? '""' : f.default}` : "",
    f.env ? `env ${f.env}` : "",
  ].filter(Boolean);
  return [left, notes.length > 0 ? `${f.help} (${notes.join("; ")})` : f.help];
}

/** The `--help` text of a command: what it does, its usage, every flag and variable with its default. */
export function helpText(command: Command): string {
  const lines = [
    `${command.name}: ${command.summary}`,
    "",
    `usage: ${command.name} ${command.usage ?? "[flags]"}`,
  ];
  if (command.commands && command.commands.length > 0) {
    lines.push("", "commands:", ...table(command.commands.map((c) => [c.name, c.summary])));
  }
  lines.push("", "flags:", ...table([...command.flags, ...BUILT_IN_FLAGS].map(flagRow)));
  if (command.env && command.env.length > 0) {
    lines.push(
      "",
      "environment:",
      ...table(
        command.env.map((e) => [
          e.name,
          e.default !== undefined ? `${e.help} (default: ${e.default})` : e.help,
        ]),
      ),
    );
  }
  if (command.more) lines.push("", command.more.trimEnd());
  return `${lines.join("\n")}\n`;
}
