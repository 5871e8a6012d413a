#!/usr/bin/env node
// Committed entry point, so npm links `thaw-autoscaler` at install time, before `dist/` is built.
import { existsSync } from "node:fs";

const main = new URL("../dist/cli.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    "thaw-autoscaler: not built yet; run `npx turbo run build --filter=@thaw/autoscaler-service...` first.\n",
  );
  process.exit(1);
}
await import(main.href);
