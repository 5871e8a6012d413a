/**
 * Property tests (fast-check) of thaw.config.yaml's parser: it never throws, whatever it is given; every
 * issue names a field path and says something; and a valid config, written back as YAML, parses to the
 * same value (defaults applied once are stable).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { parseConfig } from "./parse.js";
import { parseConfigText } from "./parse-text.js";

const RUNS = { numRuns: 500 };
const SLOW = 60_000;

function wellFormed(r: ReturnType<typeof parseConfig>): void {
  if (r.ok) return;
  expect(r.issues.length).toBeGreaterThan(0);
  for (const i of r.issues) {
    expect(typeof i.path).toBe("string");
    expect(i.path, JSON.stringify(i)).not.toBe("");
    expect(i.message.trim(), JSON.stringify(i)).not.toBe("");
  }
}

const label = fc.stringMatching(/^[a-z]([-a-z0-9]{0,10}[a-z0-9])?$/);
const cidr = fc.oneof(
  fc.ipV4(),
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([ip, p]) => `${ip}/${p}`),
  fc.ipV6(),
);
const service = fc.record(
  {
    name: label,
    hosts: fc.uniqueArray(
      label.map((l) => `${l}.localhost`),
      // At least one: a `run:` service with no hosts and no paths is refused (every request would 404).
      { minLength: 1, maxLength: 2 },
    ),
    containerConcurrency: fc.integer({ min: 0, max: 1000 }),
    timeoutSeconds: fc.integer({ min: 1, max: 600 }),
    maxQueue: fc.integer({ min: 1, max: 1_000_000 }),
    run: fc.record({
      command: fc.array(fc.string({ unit: "grapheme", minLength: 1, maxLength: 8 }), {
        minLength: 1,
        maxLength: 3,
      }),
      env: fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,6}$/), fc.string({ maxLength: 6 }), {
        maxKeys: 3,
      }),
    }),
  },
  { requiredKeys: ["name", "hosts", "run"] },
);
const validConfig = fc.record(
  {
    listen: fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 65535 })).map(([h, p]) => `${h}:${p}`),
    token: fc.string({ unit: fc.constantFrom(..."abcdefXYZ0123456789-_"), minLength: 16, maxLength: 40 }),
    trustedProxies: fc.array(cidr, { maxLength: 3 }),
    drain: fc.record({ quietPeriod: fc.constantFrom("0s", "250ms", "30s", "1m30s") }, { requiredKeys: [] }),
    services: fc
      .uniqueArray(service, { minLength: 1, maxLength: 3, selector: (s) => s.name })
      .filter((ss) => {
        const hosts = ss.flatMap((s) => s.hosts ?? []);
        return new Set(hosts).size === hosts.length;
      }),
  },
  { requiredKeys: ["services"] },
);

// Values of the wrong type, size or shape at every place a config has one.
const junk = fc.oneof(
  fc.anything(),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(null, true, -1, 1e300, "", "0", [], {}),
);

describe("thaw.config.yaml parser properties", () => {
  it(
    "never throws on any value, and every issue has a field path and a message",
    () => {
      fc.assert(
        fc.property(fc.anything(), (input) => {
          wellFormed(parseConfig(input));
        }),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "never throws on a valid config with one field replaced by junk, and names a path for each issue",
    () => {
      const keys = ["listen", "token", "trustedProxies", "drain", "autoscaler", "services"] as const;
      const serviceKeys = [
        "name",
        "hosts",
        "paths",
        "containerConcurrency",
        "timeoutSeconds",
        "run",
        "readinessProbe",
        "autoscaling",
      ] as const;
      fc.assert(
        fc.property(
          validConfig,
          fc.constantFrom(...keys),
          fc.constantFrom(...serviceKeys),
          junk,
          fc.boolean(),
          (cfg, key, skey, value, inService) => {
            const input = structuredClone(cfg) as Record<string, unknown>;
            if (inService)
              (input.services as Record<string, unknown>[])[0] = {
                ...(cfg.services[0] ?? {}),
                [skey]: value,
              };
            else input[key] = value;
            wellFormed(parseConfig(input));
          },
        ),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "never throws on any text, YAML or not",
    () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.string({ maxLength: 80 }),
            validConfig.map((c) => stringify(c).replace(/:/, "")),
          ),
          (text) => {
            wellFormed(parseConfigText(text));
          },
        ),
        RUNS,
      );
    },
    SLOW,
  );

  it(
    "accepts every generated valid config, and its YAML parses back to the same value",
    () => {
      fc.assert(
        fc.property(validConfig, (cfg) => {
          const first = parseConfig(cfg);
          if (!first.ok) throw new Error(first.issues.map((i) => `${i.path}: ${i.message}`).join("; "));
          const again = parseConfigText(stringify(first.value));
          expect(again).toEqual(first);
        }),
        RUNS,
      );
    },
    SLOW,
  );
});
