import { readFile } from "node:fs/promises";
import { parseDocument } from "yaml";
import { type ConfigResult, parseConfig } from "../parse.js";

/** Reads and validates a YAML (or JSON) config file; unreadable files and YAML syntax errors are issues too. */
export async function loadConfigFile(path: string): Promise<ConfigResult> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    return {
      ok: false,
      issues: [{ path: "(file)", message: `cannot read ${path}: ${(err as Error).message}` }],
    };
  }
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((e) => ({
        path: `(line ${e.linePos?.[0]?.line ?? "?"})`,
        message: `YAML syntax: ${e.message.split("\n")[0]}`,
      })),
    };
  }
  return parseConfig(doc.toJS());
}
