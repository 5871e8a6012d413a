#!/usr/bin/env node
/** thaw-simulate: replays a request trace through the autoscaler (see `thaw-simulate --help`). */
import process from "node:process";
import { runCli } from "./cli-main.js";

process.exitCode = await runCli(process.argv.slice(2), {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
});
