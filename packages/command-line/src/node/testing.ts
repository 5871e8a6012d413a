/**
 * A check every bin's test runs against the real bin, as a child process: `--help` lists each flag and
 * variable of the bin's table (so the help cannot drift from the parser), `--version` prints the package's
 * version, and a typo of a flag exits 2 with one line naming it and the flag meant, no stack trace.
 */
import { spawn } from "node:child_process";
import type { Command } from "../spec.js";

/** What a run of a bin printed and how it ended. */
export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node <bin> ...args` to its end (killed by PID after `timeoutMs`). */
export function runBin(
  bin: string,
  args: readonly string[],
  env: Record<string, string | undefined> = process.env,
  timeoutMs = 20_000,
): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A flag of `command` with two inner letters swapped, and the flag it should suggest. */
export function typoOf(command: Command): { typo: string; meant: string } | undefined {
  const flag = command.flags.find((f) => f.name.length >= 7);
  if (!flag) return undefined;
  const n = flag.name;
  return { typo: `${n.slice(0, 3)}${n[4]}${n[3]}${n.slice(5)}`, meant: n };
}

/**
 * Runs the three checks on `bin` (the file npm links) with an environment holding nothing the bin reads,
 * so `--help` must not depend on it; returns every problem found, none when the bin behaves.
 */
export async function commandLineProblems(
  bin: string,
  command: Command,
  version: string,
  /** The words before the flags, for a subcommand: `["up"]` for `thaw up`. */
  subcommand: readonly string[] = [],
): Promise<string[]> {
  const problems: string[] = [];
  const env = { PATH: process.env.PATH };
  const help = await runBin(bin, [...subcommand, "--help"], env);
  if (help.code !== 0) problems.push(`--help exited ${help.code}: ${help.stderr.slice(0, 300)}`);
  const names = [
    ...command.flags.map((f) => f.name),
    ...(command.env ?? []).map((e) => e.name),
    "--help",
    "--version",
  ];
  for (const name of names) if (!help.stdout.includes(name)) problems.push(`--help does not list ${name}`);
  for (const f of [...command.flags, ...(command.env ?? [])]) {
    if (f.default !== undefined && !help.stdout.includes(`default: ${f.default === "" ? '""' : f.default}`)) {
      problems.push(`--help does not show the default of ${f.name} (${f.default})`);
    }
  }
  const ver = await runBin(bin, [...subcommand, "--version"], env);
  if (ver.code !== 0 || !ver.stdout.includes(version)) {
    problems.push(`--version exited ${ver.code} printing ${JSON.stringify(ver.stdout)}, want ${version}`);
  }
  const t = typoOf(command) ?? { typo: "--zzzz-no-such-flag", meant: "" };
  const bad = await runBin(bin, [...subcommand, t.typo], env);
  const want = `unknown flag ${t.typo}${t.meant ? ` (did you mean ${t.meant}?)` : ""}`;
  const lines = bad.stderr.trim().split("\n");
  if (bad.code !== 2) problems.push(`${t.typo} exited ${bad.code}, want 2`);
  if (lines.length !== 1 || !lines[0]?.includes(want)) {
    problems.push(
      `${t.typo} printed ${JSON.stringify(bad.stderr.slice(0, 300))}, want one line with "${want}"`,
    );
  }
  return problems;
}
