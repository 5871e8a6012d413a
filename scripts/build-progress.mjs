// The build `npm start` runs, with progress: turbo prints each task's output as a group when the task ends
// (`--log-order=grouped`), so each group's first line is a finished step. One line per step instead of
// minutes of silence on a fresh clone; everything turbo said is shown only when the build fails.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/**
 * Runs `turbo run build --filter=<filter>` in `cwd`, calling `say` with one line when it starts, one per
 * finished package (`built @thaw/clock (3 done, 4.1 s)`) and one at the end. Resolves with turbo's exit code.
 */
export function buildWithProgress(cwd, filter, say = (l) => console.log(l)) {
  const began = Date.now();
  const secs = () => `${((Date.now() - began) / 1000).toFixed(1)} s`;
  const turbo = spawn(
    "npx",
    ["turbo", "run", "build", `--filter=${filter}`, "--log-order=grouped", "--output-logs=full"],
    {
      cwd,
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1", NO_COLOR: "1" },
    },
  );
  const all = [];
  let done = 0;
  let cached = 0;
  createInterface({ input: turbo.stdout }).on("line", (line) => {
    all.push(line);
    const scope = /Running build in (\d+) packages/.exec(line);
    if (scope) {
      say(
        `npm start: building up to ${scope[1]} packages (turbo run build --filter=${filter}; cached after the first time)`,
      );
      return;
    }
    const step = /^(\S+):build: cache (miss|hit)/.exec(line);
    if (!step) return;
    done++;
    if (step[2] === "hit") cached++;
    // Not "n of total": a package in scope without a build script runs no task.
    say(`npm start: built ${step[1]} (${done} done${step[2] === "hit" ? ", cached" : ""}, ${secs()})`);
  });
  return new Promise((resolve) => {
    turbo.on("close", (code) => {
      if (code === 0) say(`npm start: build done in ${secs()} (${done} packages, ${cached} from cache)`);
      else for (const l of all) say(l);
      resolve(code ?? 1);
    });
  });
}
