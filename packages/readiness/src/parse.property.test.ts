import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseProbe } from "./parse.js";

const INT32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
/** Every JSON value Go's decoder refuses for an int32 field: fractions, out-of-range, strings, bools, ... */
const notInt32 = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Number.isInteger(d)),
  fc.oneof(fc.integer({ min: 2 ** 31, max: 2 ** 40 }), fc.integer({ min: -(2 ** 40), max: -(2 ** 31) - 1 })),
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }),
);
const TIMING = [
  "initialDelaySeconds",
  "timeoutSeconds",
  "periodSeconds",
  "successThreshold",
  "failureThreshold",
];

/** A probe with `value` at `path` (dot-separated), as an object or as the JSON text the queue-proxy reads. */
function probeWith(path: string, value: unknown): Record<string, unknown> {
  const [head, tail] = path.split(".") as [string, string | undefined];
  return tail === undefined ? { tcpSocket: {}, [head]: value } : { [head]: { [tail]: value } };
}

describe("parseProbe (property)", () => {
  it("a timing field or gRPC port that is not an int32 is an issue naming the field, as a value or JSON text", () => {
    fc.assert(
      fc.property(fc.constantFrom(...TIMING, "grpc.port"), notInt32, fc.boolean(), (path, value, asText) => {
        const probe = probeWith(path, value);
        const r = parseProbe(asText ? JSON.stringify(probe) : probe, { path: "readinessProbe" });
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(`readinessProbe.${path}`);
      }),
      { numRuns: 300 },
    );
  });

  it("every int32 is accepted in every timing field; zero reads as unset (Go's omitempty)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...TIMING), INT32, (field, n) => {
        const r = parseProbe(probeWith(field, n));
        expect(r.ok).toBe(true);
        if (r.ok) expect((r.value as Record<string, unknown>)[field]).toBe(n === 0 ? undefined : n);
      }),
      { numRuns: 300 },
    );
  });

  it("a port that is neither an int32 nor a string is an issue naming httpGet.port / tcpSocket.port", () => {
    const badPort = notInt32.filter((v) => typeof v !== "string");
    fc.assert(
      fc.property(fc.constantFrom("httpGet.port", "tcpSocket.port"), badPort, (path, value) => {
        const r = parseProbe(probeWith(path, value));
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.issues.map((i) => i.path)).toContain(path);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.string(), fc.anything()), (input) => {
        const r = parseProbe(input);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });
});

describe("parseProbe of JSON text (Go's decoder)", () => {
  it.each(["1.0", "1e0", "2E1", "-0.0", "1.5"])(
    "refuses %s in an integer field, naming the field",
    (literal) => {
      const r = parseProbe(`{"tcpSocket":{"port":8080},"periodSeconds":${literal}}`, {
        path: "readinessProbe",
      });
      expect(r).toEqual({
        ok: false,
        issues: [
          {
            path: "readinessProbe.periodSeconds",
            message: `expected a 32-bit integer, got number ${literal}`,
          },
        ],
      });
    },
  );

  it("refuses a port written 8080.0 and a fractional grace period; strings with dots are untouched", () => {
    const r = parseProbe('{"httpGet":{"port":8080.0,"path":"/v1.0/e1"},"terminationGracePeriodSeconds":3e1}');
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.path).sort()).toEqual(["httpGet.port", "terminationGracePeriodSeconds"]);
    const ok = parseProbe('{"httpGet":{"port":8080,"path":"/v1.0/e1?x=\\"2.5\\""},"periodSeconds":-3}');
    expect(ok).toEqual({
      ok: true,
      value: { httpGet: { port: 8080, path: '/v1.0/e1?x="2.5"' }, periodSeconds: -3 },
    });
  });

  it("a whole probe that is a number is refused as not an object", () => {
    const r = parseProbe("1.5");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toBe("expected an object, got number 1.5");
  });
});
