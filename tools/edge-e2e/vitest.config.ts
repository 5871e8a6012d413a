import { defineConfig } from "vitest/config";

// One file at a time: each suite runs its own wrangler dev, and the machine may be small.
export default defineConfig({
  test: {
    environment: "node",
    include: ["src/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
