import { type DestinationStream, pino } from "pino";

/** Structured logging; fields are plain JSON values. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (tests, quiet embedding). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/**
 * One pino JSON line per entry on `out`: `{"level":"info","time":"<ISO>",<fields>,"msg":...}`. The level
 * is its name (not pino's number) so people and `jq` read it without a table.
 */
export function pinoLogger(out: DestinationStream | NodeJS.WritableStream = process.stderr): Logger {
  const p = pino(
    {
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    out as DestinationStream,
  );
  return {
    info: (msg, fields) => p.info(fields ?? {}, msg),
    warn: (msg, fields) => p.warn(fields ?? {}, msg),
    error: (msg, fields) => p.error(fields ?? {}, msg),
  };
}

let stderrLogger: Logger | undefined;

function stderr(): Logger {
  stderrLogger ??= pinoLogger();
  return stderrLogger;
}

/** What `thaw-autoscaler` prints: {@link pinoLogger} on stderr, created on first use. */
export const jsonLogger: Logger = {
  info: (msg, fields) => stderr().info(msg, fields),
  warn: (msg, fields) => stderr().warn(msg, fields),
  error: (msg, fields) => stderr().error(msg, fields),
};
