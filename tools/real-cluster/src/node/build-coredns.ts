#!/usr/bin/env node
// `npm run coredns:build`: builds (or reuses) the CoreDNS the real-cluster node runs for cluster names.
import { buildCoredns } from "./coredns-binary.js";

try {
  console.log(`coredns: ready at ${await buildCoredns()}`);
} catch (e) {
  console.error(`coredns: ${(e as Error).message}`);
  process.exitCode = 1;
}
