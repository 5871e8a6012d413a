/** Structured logging, the shape every Thaw app passes in. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Drops everything (the default). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
