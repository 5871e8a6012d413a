import { defineConfig } from "vitest/config";

// One file drives one temporary project end to end; its steps share it, so they run in order.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], testTimeout: 120_000, hookTimeout: 300_000 },
});
