// Module resolve hook (node:module register): appends every resolved @opentelemetry URL to a file, so a
// test can see whether a process loaded the OpenTelemetry SDK at all.
import { appendFileSync } from "node:fs";

let log = "";
export function initialize(data) {
  log = data.log;
}
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  if (log && r.url.includes("@opentelemetry")) appendFileSync(log, `${r.url}\n`);
  return r;
}
