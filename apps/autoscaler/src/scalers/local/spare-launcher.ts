/**
 * The spare app launcher: a `/bin/sh` started ahead of the next pod with this process's environment, which
 * waits on stdin for a launch script and runs it. The script moves the shell's environment to the pod's and
 * `exec`s the user's command, so the app keeps the shell's pid and process group, and its output pipes. A
 * cold start then pays an exec, not a fork of this large process (which blocked its event loop for 5-11 ms
 * here, and put the app's first instruction 6-16 ms after the spawn call instead of about 5).
 */

type Env = Readonly<Record<string, string | undefined>>;

/** The shell program: read lines until the line `$1`, then run them; end-of-file before that runs nothing. */
const PROGRAM =
  's=; while IFS= read -r l; do if [ "$l" = "$1" ]; then eval "$s"; exit 127; fi; s="$s$l\n"; done';

/** The launcher shell's `$0`: how its own messages begin (`thaw-spare-app: 4: exec: x: not found`). */
export const LAUNCHER_NAME = "thaw-spare-app";

/** argv of a waiting launcher; `end` is the line that ends its launch script (random per launcher). */
export function launcherCommand(end: string): string[] {
  return ["/bin/sh", "-c", PROGRAM, LAUNCHER_NAME, end];
}

/** `s` as one shell word. */
function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** A name `export` and `unset` take (Node's spawn takes any other too: such a pod is spawned instead). */
const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The launch script for `command` in `cwd` with environment `env`, run by a shell whose environment is
 * `own`: undefined when some variable name cannot be set from a shell. It ends with the line `end`.
 * `cd` rewrites PWD and OLDPWD, so both are set from `env` explicitly, as a spawn with `cwd` would leave them.
 */
export function launchScript(
  own: Env,
  env: Env,
  command: readonly string[],
  cwd: string | undefined,
  end: string,
): string | undefined {
  const unset = new Set(["PWD", "OLDPWD"]);
  const exports: string[] = [];
  for (const [k, v] of Object.entries(own)) if (v !== undefined && env[k] === undefined) unset.add(k);
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (!SHELL_NAME.test(k)) return undefined;
    if (own[k] !== v || unset.has(k)) exports.push(quote(`${k}=${v}`));
  }
  for (const k of unset) if (!SHELL_NAME.test(k)) return undefined;
  if (command.length === 0) return undefined;
  const lines = [
    ...(cwd ? [`cd ${quote(cwd)} || exit 127`] : []),
    `unset ${[...unset].join(" ")}`,
    ...(exports.length > 0 ? [`export ${exports.join(" ")}`] : []),
    `exec ${command.map(quote).join(" ")} </dev/null`,
    end,
  ];
  return lines.join("\n");
}
