import { unknownKeyMessages } from "@thaw/command-line";
import type { ConfigIssue } from "./parse.js";

/** The parts of a valibot schema this walk reads (entries of an object, item of an array, wrapped optional). */
interface SchemaShape {
  type: string;
  entries?: Record<string, SchemaShape>;
  item?: SchemaShape;
  wrapped?: SchemaShape;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

function pathOf(parent: string, key: string | number): string {
  if (typeof key === "number") return `${parent}[${key}]`;
  const name = key === "" ? '""' : key;
  return parent ? `${parent}.${name}` : name;
}

/**
 * Every unknown key of every strict mapping in `input`, each with the nearest allowed key, the allowed
 * keys listed once per mapping (valibot's strictObject stops at the first unknown key of each object, so
 * a user would fix them one run at a time).
 */
export function unknownKeyIssues(schema: SchemaShape, input: unknown, path = ""): ConfigIssue[] {
  let s = schema;
  while (s.wrapped) s = s.wrapped;
  const issues: ConfigIssue[] = [];
  if (s.type === "array" && s.item && Array.isArray(input)) {
    input.forEach((x, i) => {
      issues.push(...unknownKeyIssues(s.item as SchemaShape, x, pathOf(path, i)));
    });
  }
  if (s.type === "strict_object" && s.entries && Array.isArray(input)) {
    // valibot takes a list for an object whose keys are 0, 1, ...: say what it is instead.
    const fields = Object.keys(s.entries).join(", ");
    issues.push({
      path: path || "(top level)",
      message: `must be a mapping with the fields ${fields}; got a list`,
    });
  }
  if (s.type === "strict_object" && s.entries && isRecord(input)) {
    const entries = s.entries;
    const allowed = Object.keys(entries);
    const unknown = Object.keys(input).filter((k) => !Object.hasOwn(entries, k));
    unknownKeyMessages(unknown, allowed).forEach((message, i) => {
      issues.push({ path: pathOf(path, unknown[i] as string), message });
    });
    for (const key of allowed) {
      if (input[key] !== undefined) {
        issues.push(...unknownKeyIssues(entries[key] as SchemaShape, input[key], pathOf(path, key)));
      }
    }
  }
  return issues;
}
