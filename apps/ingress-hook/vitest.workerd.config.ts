import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const activatorDist = fileURLToPath(new URL("../activator/dist-worker/", import.meta.url));

// The hook's Workers entry and middleware inside workerd. Auxiliary workers: a fake activator implementing
// POST /v1/activate and an echo origin (plain JS), and the real @thaw/activator worker (built by its own
// package) with its RevisionActivator Durable Object, probing a pod that the global setup runs in Node.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        serviceBindings: { REAL_ACTIVATOR: "real-activator" },
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
          {
            name: "real-activator",
            modules: true,
            // Built by @thaw/activator's own build (a devDependency, so turbo builds it first).
            scriptPath: `${activatorDist}worker.js`,
            modulesRoot: activatorDist,
            compatibilityDate: "2026-04-20",
            durableObjects: { REVISION_ACTIVATOR: { className: "RevisionActivator", useSQLite: true } },
            bindings: {
              REVISIONS: JSON.stringify([
                { namespace: "default", name: "hello", endpoints: [`127.0.0.1:${inject("podPort")}`] },
              ]),
              ACTIVATOR_TOKEN: "",
              SCALER_WEBHOOK: "",
            },
          },
        ],
      },
    })),
  ],
  test: { include: ["test/workerd/**/*.test.ts"], globalSetup: ["./test/workerd/global-setup.ts"] },
});
