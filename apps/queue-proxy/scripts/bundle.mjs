#!/usr/bin/env node
// Bundles dist/main.js and the modules it reaches into one file, dist/queue-proxy.mjs, which the image
// runs (infra/docker/queue-proxy.Dockerfile). A pod's queue-proxy starts on the critical path of every cold
// start, and Node resolves, reads, parses and links each ES module on its own: about a hundred for
// dist/main.js. One file spares most of that (docs/bench.md, "Cold start on a real node"). What main.js
// only loads on demand (pino for the request log, the OpenTelemetry SDK for tracing) stays outside, read
// from node_modules the day it is turned on.
import { fileURLToPath } from "node:url";
import { readCommandLine } from "@thaw/command-line/node";
import { build } from "esbuild";

readCommandLine(
  {
    name: "node scripts/bundle.mjs",
    summary:
      "@thaw/queue-proxy's build step after tsc: bundles dist/main.js and the modules it reaches into dist/queue-proxy.mjs, the file the image runs (pino and the OpenTelemetry SDK stay outside)",
    flags: [],
    more: "Run by `npm run build` in apps/queue-proxy, after tsc has written dist/.",
  },
  process.argv.slice(2),
  import.meta.url,
);
const dist = fileURLToPath(new URL("../dist/", import.meta.url));
await build({
  entryPoints: [`${dist}main.js`],
  outfile: `${dist}queue-proxy.mjs`,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["pino", "@opentelemetry/*"],
  // Bundled CommonJS code may call require(); an ES module has none of its own.
  banner: {
    js: 'import { createRequire as __thawRequire } from "node:module";\nconst require = __thawRequire(import.meta.url);',
  },
  legalComments: "none",
  logLevel: "warning",
});
