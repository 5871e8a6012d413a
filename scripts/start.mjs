#!/usr/bin/env node
// `npm start`: builds what `thaw up` needs (turbo, cached after the first run), then runs
// `thaw up --config examples/hello/thaw.config.yaml`. `npm start -- --config <file>` takes any config;
// other arguments (e.g. --verbose) are passed on to `thaw up`.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildWithProgress } from "./build-progress.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const args = process.argv.slice(2);
// Every flag is thaw up's: its --help (after the build) lists them; this says what npm start adds.
if (args.some((a) => a === "--help" || a === "-h")) {
  console.log(
    "npm start: builds what thaw up needs, then runs `thaw up --config examples/hello/thaw.config.yaml`; " +
      "every flag is passed on to thaw up (`npm start -- --config <file>` takes another config). thaw up's flags:\n",
  );
}
if (!args.some((a) => a === "--config" || a === "-c" || a.startsWith("--config="))) {
  args.push("--config", "examples/hello/thaw.config.yaml");
}

const built = await buildWithProgress(root, "thaw...");
if (built !== 0) {
  console.error("npm start: the build failed; see above");
  process.exit(built);
}

// thaw runs in its own process group and hears signals only from us: Ctrl-C reaches both npm and this
// script, and npm forwards it again, so one key press would otherwise arrive as two (the second means
// "kill now" to thaw up). Repeats within a second are one signal; a later second Ctrl-C still forces.
const thaw = spawn(process.execPath, ["apps/cli/bin/thaw.mjs", "up", ...args], {
  cwd: root,
  stdio: "inherit",
  detached: true,
});
let lastSignal = 0;
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    if (Date.now() - lastSignal < 1000) return;
    lastSignal = Date.now();
    thaw.kill(sig);
  });
}
thaw.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
