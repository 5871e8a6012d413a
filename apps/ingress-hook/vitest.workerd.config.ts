import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// The hook's Workers entry and middleware inside workerd. The activator and the origin are auxiliary
// workers (plain JS): a fake activator implementing POST /v1/activate, and an echo origin.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        workers: [
          {
            name: "thaw-activator",
            modules: true,
            scriptPath: "./test/workerd/fake-activator.js",
            compatibilityDate: "2026-04-20",
          },
          {
            name: "thaw-origin",
            modules: true,
            scriptPath: "./test/workerd/origin.js",
            compatibilityDate: "2026-04-20",
          },
        ],
      },
    }),
  ],
  test: { include: ["test/workerd/**/*.test.ts"] },
});
