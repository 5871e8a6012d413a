import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "node",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["src/workerd/**", "test-workerd/**"],
    testTimeout: 20_000,
  },
});
