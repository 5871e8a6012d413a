import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// The workerd transport's tests run inside workerd; global-setup starts the Node servers they probe.
export default defineConfig({
  plugins: [cloudflareTest({ wrangler: { configPath: "./test-workerd/wrangler.jsonc" } })],
  test: { include: ["test-workerd/**/*.test.ts"], globalSetup: ["./test-workerd/global-setup.ts"] },
});
