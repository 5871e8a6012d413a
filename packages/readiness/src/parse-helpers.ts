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

/** Parses JSON text, or passes any other value through; a syntax error becomes an issue. */
export function fromJson(input: unknown, path: string, issues: Issue[]): unknown {
  if (typeof input !== "string") return input;
  try {
    return JSON.parse(input) as unknown;
  } catch (err) {
    issues.push({ path, message: `invalid JSON: ${(err as Error).message}` });
    return undefined;
  }
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
  // An object may have no prototype (nothing to print it with): name its kind, never call String on it.
  if (typeof v === "object" || typeof v === "function") return `an ${typeof v}`;
  return typeof v === "string" ? JSON.stringify(v) : `${typeof v} ${String(v)}`;
}

/** Checks for an object and, when strict, reports keys outside `allowed`. */
export function object(v: unknown, path: string, ctx: Ctx, allowed: readonly string[]) {
  if (!isObject(v)) {
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
