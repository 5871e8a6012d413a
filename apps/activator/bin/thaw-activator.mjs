#!/usr/bin/env node
// Committed executable entry point: npm links it at install time and it runs after a plain `tsc` build.
// The Node server's libraries are optional peers (Workers users never load them), so name them if missing.
import { existsSync } from "node:fs";

const main = new URL("../dist/node/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    "thaw-activator: not built yet; run `npx turbo run build --filter=@thaw/activator...` first.\n",
  );
  process.exit(1);
}
try {
  await import(main.href);
} catch (e) {
  const missing = /Cannot find package '(@hono\/node-server|prom-client|undici|ws)'/.exec(String(e?.message));
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || !missing) throw e;
  process.stderr.write(
    `thaw-activator: the Node activator needs '${missing[1]}', an optional peer dependency of @thaw/activator: ` +
      "run `npm install @hono/node-server prom-client undici ws`.\n",
  );
  process.exit(1);
}
