import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AUTOSCALING_PREFIX, parseAnnotations } from "./annotations.js";
import { parseAutoscalerConfig } from "./config.js";
import { goDurationString, parseGoDurationNs } from "./duration.js";
import { parseGoBool, parseGoFloat, parseGoInt32, parseGoInt64 } from "./scalars.js";

const GO_TRUE = ["1", "t", "T", "TRUE", "true", "True"];
const GO_FALSE = ["0", "f", "F", "FALSE", "false", "False"];
const BOOL_KEYS = ["enable-scale-to-zero", "allow-zero-initial-scale"];
const FLOAT_KEYS = [
  "container-concurrency-target-percentage",
  "container-concurrency-target-default",
  "requests-per-second-target-default",
  "max-scale-up-rate",
  "max-scale-down-rate",
  "target-burst-capacity",
  "panic-window-percentage",
  "activator-capacity",
  "panic-threshold-percentage",
];
const INT_KEYS = ["initial-scale", "min-scale", "max-scale", "max-scale-limit"];
const DURATION_KEYS = [
  "stable-window",
  "scale-to-zero-grace-period",
  "scale-to-zero-pod-retention-period",
  "scale-down-delay",
];
const RUNS = { numRuns: 300 };
/** Text that looks like config values: digits, signs, dots, units, case variants, spaces, underscores. */
const configish = fc.oneof(fc.string({ maxLength: 12 }), fc.stringMatching(/^[ +\-0-9._a-zA-Zµμ]{0,10}$/));

/** The issue paths a config parse reported, or [] when it parsed; it must never throw. */
function issuePaths(data: Record<string, string>): string[] {
  const r = parseAutoscalerConfig(data);
  return r.ok ? [] : r.issues.map((i) => i.path);
}

describe("parseAutoscalerConfig (property)", () => {
  it("never throws, and any value of a known key that Go could not read is an issue naming that key", () => {
    const keys = [...BOOL_KEYS, ...FLOAT_KEYS, ...INT_KEYS, ...DURATION_KEYS];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.anything(), (key, value) => {
        fc.pre(typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean");
        const r = parseAutoscalerConfig({ [key]: value });
        expect(r.ok ? [] : r.issues.map((i) => i.path)).toEqual([key]);
      }),
      RUNS,
    );
  });
});

describe("strconv.ParseBool", () => {
  it("accepts exactly Go's twelve spellings", () => {
    fc.assert(
      fc.property(fc.oneof(configish, fc.constantFrom(...GO_TRUE, ...GO_FALSE)), (s) => {
        const want = GO_TRUE.includes(s) ? true : GO_FALSE.includes(s) ? false : undefined;
        expect(parseGoBool(s)).toBe(want);
      }),
      RUNS,
    );
  });

  it("a config bool that Go refuses is an issue naming its key", () => {
    fc.assert(
      fc.property(fc.constantFrom(...BOOL_KEYS), configish, (key, s) => {
        fc.pre(parseGoBool(s) === undefined);
        expect(issuePaths({ [key]: s })).toEqual([key]);
      }),
      RUNS,
    );
    expect(issuePaths({ "allow-zero-initial-scale": "invalid" })).toEqual(["allow-zero-initial-scale"]);
  });
});

describe("time.ParseDuration", () => {
  const int64 = fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n });

  it("reads back every duration Go prints", () => {
    fc.assert(
      fc.property(int64, (ns) => {
        expect(parseGoDurationNs(goDurationString(ns))).toBe(ns);
      }),
      RUNS,
    );
  });

  it("sums unit terms like Go, and refuses a number without a unit", () => {
    const units: [string, bigint][] = [
      ["ns", 1n],
      ["us", 1_000n],
      ["µs", 1_000n],
      ["ms", 1_000_000n],
      ["s", 1_000_000_000n],
      ["m", 60_000_000_000n],
      ["h", 3_600_000_000_000n],
    ];
    const term = fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.constantFrom(...units));
    fc.assert(
      fc.property(fc.array(term, { minLength: 1, maxLength: 4 }), (terms) => {
        const text = terms.map(([n, [u]]) => `${n}${u}`).join("");
        const want = terms.reduce((sum, [n, [, ns]]) => sum + BigInt(n) * ns, 0n);
        expect(parseGoDurationNs(text)).toBe(want);
        expect(parseGoDurationNs(`-${text}`)).toBe(-want);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(fc.integer({ min: 1 }), (n) => {
        expect(parseGoDurationNs(String(n))).toBeUndefined();
      }),
    );
  });

  it("a config duration that Go refuses is an issue naming its key", () => {
    fc.assert(
      fc.property(fc.constantFrom(...DURATION_KEYS), configish, (key, s) => {
        fc.pre(parseGoDurationNs(s) === undefined);
        expect(issuePaths({ [key]: s })).toEqual([key]);
      }),
      RUNS,
    );
  });
});

describe("strconv.ParseInt(s, 10, 32) and strconv.ParseFloat(s, 64)", () => {
  it("ints: every int32 reads back, anything outside int32 or with other characters is refused", () => {
    fc.assert(
      fc.property(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), (n) => {
        expect(parseGoInt32(String(n))).toBe(n);
        expect(parseGoInt32(`+${n}`.replace("+-", "-"))).toBe(n);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(configish, (s) => {
        const ok = /^[+-]?[0-9]+$/.test(s) && Math.abs(Number(s)) <= 2 ** 31 - (s.startsWith("-") ? 0 : 1);
        expect(parseGoInt32(s) !== undefined).toBe(ok);
      }),
      RUNS,
    );
  });

  it("floats: every finite double reads back from its shortest text", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
        expect(Object.is(parseGoFloat(String(d)), d) || (d === 0 && parseGoFloat(String(d)) === 0)).toBe(
          true,
        );
      }),
      RUNS,
    );
  });

  it("a config int or float that Go refuses is an issue naming its key", () => {
    fc.assert(
      fc.property(fc.constantFrom(...INT_KEYS), configish, (key, s) => {
        fc.pre(parseGoInt32(s) === undefined);
        expect(issuePaths({ [key]: s })).toEqual([key]);
      }),
      RUNS,
    );
    fc.assert(
      fc.property(fc.constantFrom(...FLOAT_KEYS), configish, (key, s) => {
        fc.pre(parseGoFloat(s) === undefined);
        expect(issuePaths({ [key]: s })).toEqual([key]);
      }),
      RUNS,
    );
  });

  it("an annotation Go cannot parse is an issue naming the annotation", () => {
    const numeric = [
      "target",
      "target-utilization-percentage",
      "target-burst-capacity",
      "panic-window-percentage",
      "panic-threshold-percentage",
    ];
    const ints = ["min-scale", "max-scale", "activation-scale"];
    const durations = ["window", "scale-down-delay", "scale-to-zero-pod-retention-period"];
    fc.assert(
      fc.property(
        fc.constantFrom(...numeric, ...ints, "initial-scale", ...durations),
        configish,
        (key, s) => {
          // initial-scale is read with strconv.Atoi (64 bits), the other ints with ParseInt(s, 10, 32).
          const parses = numeric.includes(key)
            ? parseGoFloat(s) !== undefined
            : ints.includes(key)
              ? parseGoInt32(s) !== undefined
              : key === "initial-scale"
                ? parseGoInt64(s) !== undefined
                : parseGoDurationNs(s) !== undefined;
          fc.pre(!parses);
          const full = AUTOSCALING_PREFIX + key;
          const r = parseAnnotations({ [full]: s });
          expect(r.issues.map((i) => i.path)).toEqual([full]);
          expect(Object.keys(r.value)).toEqual([]);
        },
      ),
      RUNS,
    );
  });
});

describe("Go's literal forms", () => {
  it("Atoi takes int64, ParseInt(s, 10, 32) only int32", () => {
    expect(parseGoInt64("3000000000")).toBe(3_000_000_000);
    expect(parseGoInt32("3000000000")).toBeUndefined();
    expect(parseGoInt64("9223372036854775808")).toBeUndefined();
    expect(parseGoInt64("-9223372036854775808")).toBe(-(2 ** 63));
  });

  it.each([
    ["1_000", 1000],
    ["0x1p-2", 0.25],
    ["0X1.8P1", 3],
    ["-Inf", -Infinity],
    ["infinity", Infinity],
    [".5", 0.5],
    ["5.", 5],
    ["1e3", 1000],
  ])("ParseFloat(%j) = %d", (s, want) => {
    expect(parseGoFloat(s)).toBe(want);
  });

  it.each(["", " 1", "1 ", "_1", "1_", "1__0", "0x1", "1e", "1e400", "+nan", "infin", "1,5", "--1"])(
    "ParseFloat refuses %j",
    (s) => {
      expect(parseGoFloat(s)).toBeUndefined();
    },
  );

  it("ParseFloat reads NaN", () => {
    expect(parseGoFloat("NaN")).toBeNaN();
  });

  it.each([
    ["1.5h", 5_400_000_000_000n],
    [".5s", 500_000_000n],
    ["5.s", 5_000_000_000n],
    ["1h2m3.5s", 3_723_500_000_000n],
    ["+0", 0n],
    ["-0", 0n],
    ["1μs", 1000n],
    ["9223372036854775807ns", 9_223_372_036_854_775_807n],
    ["-9223372036854775808ns", -9_223_372_036_854_775_808n],
  ])("ParseDuration(%j)", (s, ns) => {
    expect(parseGoDurationNs(s)).toBe(ns);
  });

  it.each(["", "1", "s", ".s", "1x", "1m 30s", " 1s", "1s ", "9223372036854775808ns", "1.2.3s", "-"])(
    "ParseDuration refuses %j",
    (s) => {
      expect(parseGoDurationNs(s)).toBeUndefined();
    },
  );

  it.each([
    [0n, "0s"],
    [1n, "1ns"],
    [1_500n, "1.5µs"],
    [1_500_000n, "1.5ms"],
    [3_600_000_000_000n, "1h0m0s"],
    [-90_000_000_000n, "-1m30s"],
  ])("Duration(%d).String() = %s", (ns, text) => {
    expect(goDurationString(ns)).toBe(text);
  });
});
