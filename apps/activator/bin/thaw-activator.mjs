#!/usr/bin/env -S node --min-semi-space-size=8 --max-semi-space-size=8 --initial-old-space-size=8
// Committed executable entry point: npm links it at install time and it runs after a plain `tsc` build.
// The Node server's libraries are optional peers (Workers users never load them), so name them if missing;
// the Kubernetes client is loaded only for --config and the cluster Services.
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
  const missing =
    /Cannot find package '(@hono\/node-server|@kubernetes\/client-node|@thaw\/queue-proxy|ws)'/.exec(
      String(e?.message),
    );
  if (e?.code !== "ERR_MODULE_NOT_FOUND" || !missing) throw e;
  const install =
    missing[1] === "@kubernetes/client-node"
      ? "run `npm install @kubernetes/client-node` (needed for --config and the cluster Services)"
      : "run `npm install @hono/node-server @thaw/queue-proxy ws`";
  process.stderr.write(
    `thaw-activator: the Node activator needs '${missing[1]}', an optional peer dependency of @thaw/activator: ${install}.\n`,
  );
  process.exit(1);
}
