import type { Logger } from "../ports.js";

/** One JSON object per line on stderr. */
export function jsonLogger(out: NodeJS.WritableStream = process.stderr): Logger {
  const line = (level: string, msg: string, fields?: Record<string, unknown>) =>
    out.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
  return {
    info: (m, f) => line("info", m, f),
    warn: (m, f) => line("warn", m, f),
    error: (m, f) => line("error", m, f),
  };
}
