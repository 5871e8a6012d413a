#!/usr/bin/env node
// Committed executable entry point: npm links it at install time and it runs after a plain `tsc` build.
// The Node server is an optional peer (middleware users on Workers never load it), so name it if missing.
import { existsSync } from "node:fs";

const main = new URL("../dist/node/cli.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    "thaw-ingress-hook: not built yet; run `npx turbo run build --filter=@thaw/ingress-hook...` first.\n",
  );
  process.exit(1);
}
try {
  await import(main.href);
} catch (e) {
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || !String(e?.message).includes("'@hono/node-server'")) throw e;
  process.stderr.write(
    "thaw-ingress-hook: the forward-auth service needs '@hono/node-server', an optional peer dependency of " +
      "@thaw/ingress-hook: run `npm install @hono/node-server`.\n",
  );
  process.exit(1);
}
