import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { launcherCommand, launchScript } from "./spare-launcher.js";

const END = "thaw-launch-test-end";

/**
 * Runs a real waiting launcher with environment `own`, feeds it `script`, and returns what the exec'd
 * program (node, which adds nothing to its environment) saw: its environment and working directory.
 */
function launch(
  own: Record<string, string>,
  script: string | undefined,
): { env: Record<string, string>; cwd: string } {
  if (script === undefined) throw new Error("no script");
  const [file, ...args] = launcherCommand(END);
  const r = spawnSync(file as string, args, { env: own, input: `${script}\n`, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

const SHOW = [
  process.execPath,
  "-e",
  "process.stdout.write(JSON.stringify({ env: process.env, cwd: process.cwd() }))",
];

describe("the spare launcher's script (real /bin/sh)", () => {
  const own = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/root", PWD: "/", KEEP: "same", GONE: "x" };

  it.each([
    [
      "added, changed and removed variables",
      { PATH: own.PATH, HOME: "/home/app", KEEP: "same", PORT: "8080" },
    ],
    [
      "values with quotes, spaces, $ and newlines",
      { PATH: own.PATH, Q: `it's "a" $HOME \\n`, NL: "a\nb\n\nc" },
    ],
    ["a value equal to the end line", { PATH: own.PATH, TRICK: END }],
    ["PWD kept from the pod's environment", { PATH: own.PATH, PWD: "/somewhere/else" }],
    ["no PWD at all", { PATH: own.PATH }],
  ])("%s: the program sees exactly the pod's environment", (_name, env) => {
    const r = launch(own, launchScript(own, env, SHOW, undefined, END));
    expect(r.env).toEqual(env);
  });

  it("runs the command in the pod's working directory, PWD untouched as a spawn with cwd leaves it", () => {
    const dir = realpathSync(mkdtempSync(`${tmpdir()}/launch-`));
    const env = { PATH: own.PATH, PWD: "/" };
    const r = launch(own, launchScript(own, env, SHOW, dir, END));
    expect(r.cwd).toBe(dir);
    expect(r.env).toEqual(env);
  });

  it("keeps argv word for word and gives the program /dev/null as stdin", () => {
    const argv = ["/bin/sh", "-c", 'printf "%s|" "$@"; cat; printf "\\0"', "sh", "a b", "'q'", "", "$x"];
    const [file, ...args] = launcherCommand(END);
    const script = launchScript(own, own, argv, undefined, END);
    const r = spawnSync(file as string, args, {
      env: own,
      input: `${script}\nmore stdin\n`,
      encoding: "utf8",
    });
    expect(r.stdout).toBe("a b|'q'||$x|\0");
  });

  it("ends the waiting shell without running anything when stdin closes before the end line", () => {
    const [file, ...args] = launcherCommand(END);
    const script = launchScript(own, own, ["/bin/sh", "-c", "echo ran"], undefined, END) as string;
    const partial = script.slice(0, script.lastIndexOf("\n"));
    const r = spawnSync(file as string, args, { env: own, input: `${partial}\n`, encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("");
  });

  it("an exec that fails exits 127 with the shell's message", () => {
    const [file, ...args] = launcherCommand(END);
    const script = launchScript(own, own, ["/nonexistent/app"], undefined, END);
    const r = spawnSync(file as string, args, { env: own, input: `${script}\n`, encoding: "utf8" });
    expect(r.status).toBe(127);
    expect(r.stderr).toContain("/nonexistent/app");
  });

  it.each([
    ["a variable name a shell cannot set", { "A-B": "1" }],
    ["an inherited name a shell cannot unset", {}],
  ])("is undefined for %s (the pod is spawned instead)", (_name, env) => {
    expect(launchScript({ ...own, "X.Y": "1" }, env, ["true"], undefined, END)).toBeUndefined();
  });

  it("is undefined for an empty command", () => {
    expect(launchScript(own, own, [], undefined, END)).toBeUndefined();
  });
});
