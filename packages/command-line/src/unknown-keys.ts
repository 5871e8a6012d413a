import { closest } from "./closest.js";

/**
 * One message per unknown key of one mapping: `unknown field (did you mean max-scale?)`, and the allowed
 * keys listed once, on the first key nothing close was found for, instead of once per key.
 */
export function unknownKeyMessages(
  unknown: readonly string[],
  allowed: readonly string[],
  noun = "field",
): string[] {
  let listed = false;
  return unknown.map((key) => {
    const near = closest(key, allowed);
    if (near) return `unknown ${noun} (did you mean ${near}?)`;
    if (listed) return `unknown ${noun}`;
    listed = true;
    return `unknown ${noun}; allowed here: ${allowed.join(", ")}`;
  });
}
