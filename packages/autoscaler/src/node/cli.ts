#!/usr/bin/env node
/** thaw-simulate: replays a request trace through the autoscaler (see `thaw-simulate --help`). */
import process from "node:process";
import { runCli } from "./cli-main.js";

// A reader that stops early (`| head`) is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

process.exitCode = await runCli(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
});
