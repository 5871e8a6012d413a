import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Every wrangler.jsonc of the repository (node_modules and build output left out). */
function wranglerConfigs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) {
      if (/^(node_modules|dist|dist-worker|\.git|\.turbo|\.wrangler)$/.test(e.name)) return [];
      return wranglerConfigs(join(dir, e.name));
    }
    return e.name === "wrangler.jsonc" ? [join(dir, e.name)] : [];
  });
}

/** JSON with comments as JSON: `//` and `/* *\/` dropped outside strings ("http://" stays). */
function withoutComments(text: string): string {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = /"(?:[^"\\]|\\.)*"/y;
      end.lastIndex = i;
      const m = end.exec(text);
      out += m?.[0] ?? c;
      i += (m?.[0].length ?? 1) - 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
      out += "\n";
    } else if (c === "/" && text[i + 1] === "*") {
      i = text.indexOf("*/", i + 2) + 1;
      if (i === 0) break;
    } else out += c;
  }
  return out;
}

/** The `jsonc` blocks of the repository's Markdown (users copy their wrangler.jsonc from them). */
function markdownBlocks(dir: string): { where: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) {
      if (/^(node_modules|dist|\.git|\.turbo|\.wrangler)$/.test(e.name)) return [];
      return markdownBlocks(join(dir, e.name));
    }
    if (!e.name.endsWith(".md")) return [];
    const file = join(dir, e.name);
    const md = readFileSync(file, "utf8");
    return [...md.matchAll(/```jsonc\n([\s\S]*?)```/g)].map((m) => ({
      where: relative(root, file),
      text: m[1] as string,
    }));
  });
}

/** Keys of `vars` (top level and per environment) that name a token, secret or password. */
function secretVars(text: string): string[] {
  const config = JSON.parse(withoutComments(text)) as {
    vars?: Record<string, unknown>;
    env?: Record<string, { vars?: Record<string, unknown> }>;
  };
  const vars = [config.vars, ...Object.values(config.env ?? {}).map((e) => e.vars)];
  return vars.flatMap((v) => Object.keys(v ?? {}).filter((key) => /TOKEN|SECRET|PASSWORD/i.test(key)));
}

const FIX = "put these in secrets (wrangler secret put; locally .dev.vars), not vars";

describe("wrangler configs keep tokens out of vars (issue 27.7): wrangler prints vars in clear and uploads them as text", () => {
  it("no wrangler.jsonc of the repository has a token, secret or password in vars", () => {
    const files = wranglerConfigs(root);
    expect(files.map((f) => relative(root, f))).toContain("tools/consumer-test/fixture/wrangler.jsonc");
    const found = files.flatMap((f) =>
      secretVars(readFileSync(f, "utf8")).map((key) => `${relative(root, f)}: vars.${key}`),
    );
    expect(found, FIX).toEqual([]);
  });

  it("no wrangler.jsonc shown in the docs has one either", () => {
    const blocks = markdownBlocks(root).filter((b) => b.text.includes('"vars"'));
    expect(blocks.map((b) => b.where)).toContain("apps/activator/README.md");
    const found = blocks.flatMap((b) => secretVars(b.text).map((key) => `${b.where}: vars.${key}`));
    expect(found, FIX).toEqual([]);
  });
});
