// A module hook (node:module register) that appends every URL the process resolves to the file named by
// THAW_RESOLVE_LOG: startup-imports.test.ts reads it to see what a command loaded.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.THAW_RESOLVE_LOG, `${r.url}\n`);
  return r;
}
