import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

const activatorDist = fileURLToPath(new URL("../activator/dist-worker/", import.meta.url));

// The hook's Workers entry and middleware inside workerd. Auxiliary workers: a fake activator implementing
// POST /v1/activate (plain JS), and the real @thaw/activator worker (built by its own package) with its
// RevisionActivator Durable Object, probing a pod that the global setup runs in Node. The same Node server
// is the gateway's ORIGIN_URL (an echo) and the real activator's scale webhook receiver.
export default defineConfig({
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          ORIGIN_URL: `http://127.0.0.1:${inject("podPort")}`,
          // Short, so the never-ready revision's 503 comes quickly; the shipped default is 300000.
          ACTIVATION_TIMEOUT_MS: "1000",
          // A request on hello's /login warms `stuck` for 120 s (docs/warm.md).
          THAW_WARM: JSON.stringify([
            { path: "/login", hosts: ["hello.localhost"], services: ["stuck"], ttlSeconds: 120 },
          ]),
          THAW_SERVICES: JSON.stringify([
            { name: "hello", namespace: "default", hosts: ["hello.localhost"] },
            // Ready 500 ms after its activation: its held burst is reported while it waits.
            { name: "slow", namespace: "default", hosts: ["slow.localhost"] },
            // A browser's GET for it gets the waiting page after 200 ms (before its 1 s timeout).
            {
              name: "stuck",
              namespace: "default",
              hosts: ["stuck.localhost"],
              waitingPage: { afterMs: 200 },
            },
          ]),
        },
        serviceBindings: { REAL_ACTIVATOR: "real-activator" },
        workers: [
          {
            name: "thaw-activator",
            modules: true,
            scriptPath: "./test/workerd/fake-activator.js",
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
              SCALE_WEBHOOK_URL: `http://127.0.0.1:${inject("podPort")}/scale`,
              SCALE_WEBHOOK_SECRET: "hook-suite-secret-0123",
            },
          },
        ],
      },
    })),
  ],
  test: { include: ["test/workerd/**/*.test.ts"], globalSetup: ["./test/workerd/global-setup.ts"] },
});
