#!/usr/bin/env -S node --min-semi-space-size=8 --max-semi-space-size=8 --initial-old-space-size=8
// Committed executable entry point: npm links it at install time and it runs after a plain `tsc` build,
// which emits dist/main.js without the run bit. The V8 flags keep the sidecar's heap small (README).
import { existsSync } from "node:fs";

const main = new URL("../dist/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    "thaw-queue-proxy: not built yet; run `npx turbo run build --filter=@thaw/queue-proxy...` first.\n",
  );
  process.exit(1);
}
await import(main.href);
