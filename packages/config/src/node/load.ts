import { readFile } from "node:fs/promises";
import type { ConfigResult } from "../parse.js";
import { parseConfigText } from "../parse-text.js";

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
  return parseConfigText(text);
}
