#!/usr/bin/env node
// Committed entry point, so npm links the bin at install time even before `dist/` is built.
import("../dist/node/cli.js").catch((err) => {
  if (err?.code === "ERR_MODULE_NOT_FOUND") {
    process.stderr.write("thaw-simulate: @thaw/autoscaler is not built yet; run `npm run build` first.\n");
    process.exit(1);
  }
  throw err;
});
