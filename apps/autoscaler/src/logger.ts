/** Structured logging; fields are plain JSON values. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A logger that drops everything (tests, quiet embedding). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };

/** One JSON line per entry on stderr: what `thaw-autoscaler` prints. */
export const jsonLogger: Logger = {
  info: (msg, fields) => write("info", msg, fields),
  warn: (msg, fields) => write("warn", msg, fields),
  error: (msg, fields) => write("error", msg, fields),
};

function write(level: string, msg: string, fields?: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`);
}
