#!/usr/bin/env node
// `npm run coredns:build`: builds (or reuses) the CoreDNS the real-cluster node runs for cluster names.
import { readCommandLine } from "@thaw/command-line/node";
import { COREDNS_BUILD_COMMAND } from "../dev-commands.js";
import { buildCoredns } from "./coredns-binary.js";

readCommandLine(COREDNS_BUILD_COMMAND, process.argv.slice(2), import.meta.url);

try {
  console.log(`coredns: ready at ${await buildCoredns()}`);
} catch (e) {
  console.error(`coredns: ${(e as Error).message}`);
  process.exitCode = 1;
}
