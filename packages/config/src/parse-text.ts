import { parseDocument } from "yaml";
import { type ConfigResult, parseConfig } from "./parse.js";

/** Validates thaw.config.yaml's text (YAML or JSON); a YAML syntax error is an issue naming its line. */
export function parseConfigText(text: string): ConfigResult {
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
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (err) {
    // Well-formed YAML can still fail to build a value (an alias to an anchor defined later, or none).
    return { ok: false, issues: [{ path: "(top level)", message: `YAML: ${(err as Error).message}` }] };
  }
  return parseConfig(value);
}
