/**
 * Property tests (fast-check) of the queue-proxy's environment parser: whatever the variables hold it
 * returns a value or issues (never throws), each issue names a variable it was given or requires and says
 * what to set, and integers written in any accepted form read back as the number.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KNATIVE_ENV } from "../test/helpers.js";
import { parseConfig } from "./config.js";

// Generous: on a loaded 2-core machine a few thousand runs take seconds.
const SLOW = 60_000;

const good = KNATIVE_ENV;
const names = [
  ...Object.keys(good),
  "REVISION_RESPONSE_START_TIMEOUT_SECONDS",
  "REVISION_IDLE_TIMEOUT_SECONDS",
  "ENABLE_MULTI_CONTAINER_PROBES",
  "THAW_ADMIN_PORT",
  "THAW_METRICS_PORT",
  "THAW_USER_METRICS_PORT",
  "THAW_REQUEST_METRICS",
  "THAW_REQUEST_LOG",
  "THAW_DRAIN_QUIET_PERIOD_MS",
  "THAW_HIJACKED_GRACE_MS",
  "THAW_TUNNEL_IDLE_MS",
  "QUEUE_PROXY_TLS_MIN_VERSION",
  "QUEUE_PROXY_TLS_MAX_VERSION",
  "QUEUE_PROXY_TLS_CIPHER_SUITES",
  "QUEUE_PROXY_TLS_CURVE_PREFERENCES",
];
const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer().map(String),
  fc.constantFrom("", " ", "-1", "+5", "0x10", "1e3", "65536", "99999999999999999999", "true", "off", "1.2"),
);

describe("queue-proxy env config properties", () => {
  it(
    "never throws, and every issue names a known variable and says what is expected",
    () => {
      fc.assert(
        fc.property(fc.dictionary(fc.constantFrom(...names), value), fc.boolean(), (env, fromGood) => {
          const r = parseConfig(fromGood ? { ...good, ...env } : env);
          if (r.ok) return;
          expect(r.issues.length).toBeGreaterThan(0);
          for (const i of r.issues) {
            expect(names, JSON.stringify(i)).toContain(i.variable);
            expect(i.message.trim(), JSON.stringify(i)).not.toBe("");
          }
        }),
        { numRuns: 3000 },
      );
    },
    SLOW,
  );

  it(
    "reads an in-range port or concurrency written with spaces or a + sign as that number",
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 65535 }),
          fc.integer({ min: 0, max: 1000 }),
          fc.boolean(),
          (port, cc, fancy) => {
            const w = (n: number) => (fancy ? ` +${n} ` : String(n));
            const r = parseConfig({ ...good, USER_PORT: w(port), CONTAINER_CONCURRENCY: w(cc) });
            expect(r.ok).toBe(true);
            if (r.ok) expect([r.value.userPort, r.value.containerConcurrency]).toEqual([port, cc]);
          },
        ),
        { numRuns: 1000 },
      );
    },
    SLOW,
  );

  it(
    "refuses every out-of-range port, naming the variable",
    () => {
      fc.assert(
        fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 65536 })), (port) => {
          const r = parseConfig({ ...good, USER_PORT: String(port) });
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.issues.map((i) => i.variable)).toEqual(["USER_PORT"]);
        }),
        { numRuns: 500 },
      );
    },
    SLOW,
  );
});
