import type { IntOrString, Issue } from "./types.js";

/** Knative's message for a field outside the allowed probe mask. */
export const DISALLOWED = "must not set the field(s)";

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** Where parse issues go, and whether unknown keys are issues. */
export interface Ctx {
  issues: Issue[];
  strict: boolean;
}

/** Key of the object that stands in for a JSON number literal with a fraction or exponent (see fromJson). */
const GO_NUMBER = "\u0000json number";

/**
 * Parses JSON text, or passes any other value through; a syntax error becomes an issue. Every number
 * literal written with a fraction or exponent (`1.0`, `1e2`) comes back as an object holding its text:
 * JavaScript would read `1.0` as the integer 1, but Go's decoder refuses it for the probe's integer fields,
 * and every field of a probe that takes a number is an integer. Readers reject objects, so the value is
 * refused wherever it appears, with its text in the message (see `describe`).
 */
export function fromJson(input: unknown, path: string, issues: Issue[]): unknown {
  if (typeof input !== "string") return input;
  try {
    JSON.parse(input);
    return JSON.parse(tagNonIntegerNumbers(input)) as unknown;
  } catch (err) {
    issues.push({ path, message: `invalid JSON: ${(err as Error).message}` });
    return undefined;
  }
}

/** `text` (valid JSON) with each number literal that has `.`, `e` or `E` wrapped as `{GO_NUMBER: "<literal>"}`. */
function tagNonIntegerNumbers(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j] as string)) j++;
      const literal = text.slice(i, j);
      out += /[.eE]/.test(literal) ? `{${JSON.stringify(GO_NUMBER)}:${JSON.stringify(literal)}}` : literal;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Joins a field name onto a dotted path. */
export function join(base: string, field: string): string {
  return base === "" ? field : `${base}.${field}`;
}

/** True for plain (non-array, non-null) objects. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A short description of a value for messages. */
export function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (isObject(v) && typeof v[GO_NUMBER] === "string") return `number ${v[GO_NUMBER]}`;
  // An object may have no prototype (nothing to print it with): name its kind, never call String on it.
  if (typeof v === "object" || typeof v === "function") return `an ${typeof v}`;
  return typeof v === "string" ? JSON.stringify(v) : `${typeof v} ${String(v)}`;
}

/** Checks for an object and, when strict, reports keys outside `allowed`. */
export function object(v: unknown, path: string, ctx: Ctx, allowed: readonly string[]) {
  if (!isObject(v) || typeof v[GO_NUMBER] === "string") {
    ctx.issues.push({ path, message: `expected an object, got ${describe(v)}` });
    return undefined;
  }
  if (ctx.strict) {
    for (const key of Object.keys(v)) {
      if (!allowed.includes(key)) ctx.issues.push({ path: join(path, key), message: DISALLOWED });
    }
  }
  return v;
}

/** Reads an int32; zero reads as unset, as with Go's omitempty. */
export function int32(v: unknown, path: string, ctx: Ctx): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) {
    ctx.issues.push({ path, message: `expected a 32-bit integer, got ${describe(v)}` });
    return undefined;
  }
  return v === 0 ? undefined : v;
}

/** Reads a string; empty reads as unset. */
export function str(v: unknown, path: string, ctx: Ctx): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") {
    ctx.issues.push({ path, message: `expected a string, got ${describe(v)}` });
    return undefined;
  }
  return v === "" ? undefined : v;
}

/** Reads a port given as an int32 or a string. */
export function intOrString(v: unknown, path: string, ctx: Ctx): IntOrString | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" && Number.isInteger(v) && v >= INT32_MIN && v <= INT32_MAX) return v;
  ctx.issues.push({ path, message: `expected a port number or name, got ${describe(v)}` });
  return undefined;
}

/** Adds `key: value` only when value is set, keeping parsed objects free of `undefined` keys. */
export function put<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void {
  if (value !== undefined) target[key] = value;
}
