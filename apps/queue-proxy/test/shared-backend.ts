import { afterAll, beforeAll } from "vitest";
import { startBackend } from "./helpers.js";

/** The test backend startBackend() gives: its port, what it saw, and close(). */
export type Backend = Awaited<ReturnType<typeof startBackend>>;

/**
 * One test backend for the whole file: started before its first test, closed after its last. Call it at
 * the top of a test file and read the result inside tests (its fields are there once beforeAll has run;
 * `seen` is the backend's own array, so it grows as requests arrive).
 */
export function sharedBackend(): Backend {
  const backend = {} as Backend;
  beforeAll(async () => {
    Object.assign(backend, await startBackend());
  });
  afterAll(async () => {
    await backend.close();
  });
  return backend;
}
