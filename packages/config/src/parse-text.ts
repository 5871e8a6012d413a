import { LineCounter, Parser, parseDocument, type YAMLError } from "yaml";
import { type ConfigIssue, type ConfigResult, parseConfig } from "./parse.js";

/** Offset where the quoted scalar around `offset` opens, found in the parser's tokens (none: undefined). */
function quoteStart(text: string, offset: number): number | undefined {
  let found: number | undefined;
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null) return;
    const t = node as { type?: string; offset?: number; source?: string };
    if (
      (t.type === "double-quoted-scalar" || t.type === "single-quoted-scalar") &&
      typeof t.offset === "number" &&
      t.offset <= offset &&
      offset <= t.offset + (t.source?.length ?? 0)
    ) {
      found = t.offset;
    }
    for (const v of Object.values(node)) if (typeof v === "object") visit(v);
  };
  for (const token of new Parser().parse(text)) visit(token);
  return found;
}

/**
 * A syntax error as `line L, column C` and the parser's first sentence. The parser places an unclosed
 * quote's error at the end of the file; it is moved to where the quote opens, the line a person must fix.
 */
function syntaxIssue(text: string, e: YAMLError, lines: LineCounter): ConfigIssue {
  let at = e.pos[0];
  if (e.code === "MISSING_CHAR" && /quote/.test(e.message)) at = quoteStart(text, at) ?? at;
  const { line, col } = lines.linePos(at);
  const message = e.message.split(/ at line \d+, column \d+/)[0]?.split("\n")[0] ?? e.message;
  return { path: `line ${line}, column ${col}`, message: `YAML syntax: ${message}` };
}

/** Validates thaw.config.yaml's text (YAML or JSON); a YAML syntax error is an issue naming its line. */
export function parseConfigText(text: string): ConfigResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { prettyErrors: false, lineCounter: lines });
  if (doc.errors.length > 0) {
    return { ok: false, issues: doc.errors.map((e) => syntaxIssue(text, e, lines)) };
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
