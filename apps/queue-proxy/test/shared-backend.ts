import { afterAll, beforeAll } from "vitest";
import { startBackend } from "./helpers.js";

/** The test backend startBackend() gives: its port, what it saw, and close(). */
export type Backend = Awaited<ReturnType<typeof startBackend>>;

/**
 * One test backend for the whole file: started before its first test, closed after its last. Call it at
 * the top of a test file and read it inside tests (reading it before beforeAll ran throws).
 */
export function sharedBackend(): Backend {
  let backend: Backend | undefined;
  beforeAll(async () => {
    backend = await startBackend();
  });
  afterAll(async () => {
    await backend?.close();
  });
  const running = (): Backend => {
    if (!backend) throw new Error("the shared backend is read before its beforeAll ran");
    return backend;
  };
  return {
    get port() {
      return running().port;
    },
    get seen() {
      return running().seen;
    },
    close: () => running().close(),
  };
}
