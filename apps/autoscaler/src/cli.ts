#!/usr/bin/env node
/**
 * `thaw-autoscaler`'s entry: the command line is read first, so `--help`, `--version` and a mistyped flag
 * are answered before the Kubernetes client and the rest of main.ts are loaded.
 */
import { readCommandLine } from "@thaw/command-line/node";
import { AUTOSCALER_CLI } from "./cli-spec.js";

readCommandLine(AUTOSCALER_CLI, process.argv.slice(2), import.meta.url);
await import("./main.js");
