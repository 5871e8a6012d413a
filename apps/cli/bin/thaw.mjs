#!/usr/bin/env node
// Committed entry point, so npm links `thaw` at install time, before `dist/` is built.
import { existsSync } from "node:fs";

const main = new URL("../dist/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    "thaw: not built yet; run `npx turbo run build --filter=thaw...` (or `npm start`) first.\n",
  );
  process.exit(1);
}
await import(main.href);
