import { fail, type Outcome, type Vector } from "./types.js";

/**
 * One kind of vector an adapter understands, told apart by the keys of its `input` and `expect` (as
 * conformance/knative/README.md describes each file), never by the Go test it came from.
 */
export interface Kind {
  /** What the kind exercises, for messages (e.g. "queue-proxy health handler"). */
  name: string;
  /** `input` keys that must be present. */
  input: readonly string[];
  /** `input` keys that may be present; any other key makes the vector another shape. */
  optionalInput?: readonly string[];
  /** `expect` keys that must be present. */
  expect: readonly string[];
  /** `expect` keys that may be present (each one the kind checks when given). */
  optionalExpect?: readonly string[];
  /** A condition on values where keys alone do not decide (e.g. `input.kind === "linear"`). */
  when?: { test: (v: Vector) => boolean; text: string };
  run: (v: Vector) => Outcome | Promise<Outcome>;
}

interface Fit {
  kind: Kind;
  missing: string[];
  unknown: string[];
  whenFails: boolean;
}

function fit(kind: Kind, v: Vector): Fit {
  const missing: string[] = [];
  const unknown: string[] = [];
  for (const [side, keys, required, optional] of [
    ["input", Object.keys(v.input ?? {}), kind.input, kind.optionalInput ?? []],
    ["expect", Object.keys(v.expect ?? {}), kind.expect, kind.optionalExpect ?? []],
  ] as const) {
    for (const k of required) if (!keys.includes(k)) missing.push(`${side}.${k}`);
    for (const k of keys) if (!required.includes(k) && !optional.includes(k)) unknown.push(`${side}.${k}`);
  }
  const whenFails = missing.length === 0 && unknown.length === 0 && kind.when ? !kind.when.test(v) : false;
  return { kind, missing, unknown, whenFails };
}

/** The kinds whose shape `v` has. */
export function matchingKinds(kinds: readonly Kind[], v: Vector): Kind[] {
  return kinds
    .map((k) => fit(k, v))
    .filter((f) => !f.missing.length && !f.unknown.length && !f.whenFails)
    .map((f) => f.kind);
}

/**
 * Runs `v` through the one kind whose shape it has. No match is a failure that names the closest kind and
 * the fields the vector lacks or has beyond it; two matches are an adapter bug, also a failure.
 */
export function dispatch(kinds: readonly Kind[], v: Vector): Outcome | Promise<Outcome> {
  if (typeof v.input !== "object" || v.input === null) return fail("the vector has no input object");
  if (typeof v.expect !== "object" || v.expect === null) return fail("the vector has no expect object");
  // A vector passes only on an assertion somebody made.
  if (Object.keys(v.expect).length === 0) return fail("the vector's expect is empty: nothing to check");
  const fits = kinds.map((k) => fit(k, v));
  const hits = fits.filter((f) => !f.missing.length && !f.unknown.length && !f.whenFails);
  if (hits.length === 1) return (hits[0] as Fit).kind.run(v);
  if (hits.length > 1) return fail(`ambiguous shape: ${hits.map((h) => h.kind.name).join(", ")} all match`);
  const shape = `input {${Object.keys(v.input).join(", ")}}, expect {${Object.keys(v.expect).join(", ")}}`;
  const score = (f: Fit) => f.missing.length + f.unknown.length + Number(f.whenFails);
  const least = Math.min(...fits.map(score));
  // Every kind at the least distance is named: a tie means the vector could be meant as any of them.
  const closest = fits.filter((f) => score(f) === least);
  if (closest.length === 0) return fail(`no adapter kind reads ${shape}`);
  const why = (f: Fit) =>
    f.whenFails
      ? `its keys fit but ${f.kind.when?.text} does not hold`
      : [
          f.missing.length ? `missing ${f.missing.join(", ")}` : "",
          f.unknown.length ? `unknown ${f.unknown.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; ");
  const named = closest.map((f) => `"${f.kind.name}": ${why(f)}`).join(" | ");
  return fail(`no adapter kind reads ${shape}; closest ${closest.length > 1 ? "are" : "is"} ${named}`);
}
