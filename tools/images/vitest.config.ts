import { defineConfig } from "vitest/config";

// Image builds take minutes on a cold cache: one fork, long hooks.
export default defineConfig({
  test: {
    environment: "node",
    include: ["test/**/*.test.ts"],
    hookTimeout: 40 * 60_000,
    testTimeout: 120_000,
    fileParallelism: false,
  },
});
