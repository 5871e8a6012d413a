#!/usr/bin/env node
// `npm run k8s:build`: builds (or reuses) the Kubernetes binaries the real-cluster tests run.
import { readCommandLine } from "@thaw/command-line/node";
import { K8S_BUILD_COMMAND } from "./dev-commands.js";
import { BUILD_COMMAND, buildK8sBinaries, K8S_VERSION, k8sCacheDir } from "./k8s-binaries.js";

readCommandLine(K8S_BUILD_COMMAND, process.argv.slice(2), import.meta.url);

const t0 = Date.now();
try {
  const built = await buildK8sBinaries();
  const total = built.reduce((s, b) => s + b.bytes, 0);
  for (const b of built) {
    const how = b.reused ? "reused" : `built in ${b.seconds} s`;
    console.log(`k8s: ${b.name.padEnd(24)} ${(b.bytes / 1e6).toFixed(0).padStart(4)} MB  ${how}`);
  }
  console.log(
    `k8s: ${K8S_VERSION} ready in ${k8sCacheDir()}/bin (${(total / 1e6).toFixed(0)} MB, ${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );
} catch (e) {
  console.error(`k8s: ${(e as Error).message}`);
  console.error(`k8s: fix the cause above, then run \`${BUILD_COMMAND}\` again (built binaries are kept)`);
  process.exitCode = 1;
}
