import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

/** The Durable Object suite, inside workerd; the fake pod and webhook run in Node (global setup). */
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => {
      const origin = `127.0.0.1:${inject("originPort")}`;
      const rev = (name: string, extra: Record<string, unknown> = {}) => ({
        namespace: "default",
        name,
        endpoints: [origin],
        ...extra,
      });
      return {
        wrangler: { configPath: "./wrangler.jsonc" },
        miniflare: {
          bindings: {
            REVISIONS: JSON.stringify([
              rev("cold", { timeoutSeconds: 20 }),
              rev("probe"),
              rev("cap", { containerConcurrency: 1, maxQueue: 2 }),
              rev("decide", { containerConcurrency: 1 }),
              { namespace: "default", name: "bare", endpoints: [`127.0.0.1:${inject("barePort")}`] },
              {
                namespace: "default",
                name: "bare-ok",
                endpoints: [`127.0.0.1:${inject("barePort")}`],
                readinessPath: "/healthz",
              },
              rev("loaded", { containerConcurrency: 1 }),
              // Never ready: its activation waits while a gateway reports the requests held behind it.
              { namespace: "default", name: "held", endpoints: ["127.0.0.1:1"], containerConcurrency: 2 },
              rev("zero", {
                containerConcurrency: 1,
                autoscaling: { "stable-window": "6s", "scale-to-zero-grace-period": "4s", target: "1" },
              }),
            ]),
            // A webhook origin here, so the shipped Thaw origin URL is cleared (exactly one may be set).
            THAW_ORIGIN_URL: "",
            SCALE_WEBHOOK_URL: `http://${origin}/__control/poke`,
            // The same secret as test-workerd/origin.ts (WEBHOOK_SECRET), which verifies every call.
            SCALE_WEBHOOK_SECRET: "workerd-suite-secret-0123",
            ACTIVATOR_TOKEN: "",
            EDGE_DECIDER: "true",
            THAW_TEST_CLOCK: "true",
          },
        },
      };
    }),
  ],
  test: {
    include: ["test-workerd/**/*.test.ts"],
    globalSetup: ["./test-workerd/global-setup.ts"],
    testTimeout: 20_000,
  },
});
