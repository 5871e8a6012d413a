import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { allowed, runtimeImports, scanPackages } from "./imports.js";

const packagesDir = join(dirname(fileURLToPath(import.meta.url)), "../../../packages");

describe("portable packages", () => {
  it("import node:* only under src/node and cloudflare:* only under src/workerd", async () => {
    const violations = await scanPackages(packagesDir);
    expect(violations.map((v) => `${v.file}:${v.line} imports ${v.specifier}`)).toEqual([]);
  });
});

describe("the guard itself", () => {
  it("finds every import form", () => {
    const text = [
      'import { a } from "node:fs";',
      "import x from 'cloudflare:sockets';",
      'import "node:process";',
      'const m = await import("node:net");',
      'export { b } from "node:path";',
      'import { ok } from "./node.js";',
    ].join("\n");
    expect(runtimeImports(text)).toEqual([
      { line: 1, specifier: "node:fs" },
      { line: 2, specifier: "cloudflare:sockets" },
      { line: 3, specifier: "node:process" },
      { line: 4, specifier: "node:net" },
      { line: 5, specifier: "node:path" },
    ]);
  });

  it.each([
    ["src/index.ts", "node:net", false],
    ["src/index.ts", "cloudflare:sockets", false],
    ["src/node/tcp.ts", "node:net", true],
    ["src/node/tcp.ts", "cloudflare:sockets", false],
    ["src/workerd/tcp.ts", "cloudflare:sockets", true],
    ["src/workerd/tcp.ts", "node:net", false],
    ["src/prober.test.ts", "node:http", true],
    ["test/x.test.ts", "node:http", true],
  ])("%s importing %s allowed: %s", (path, spec, ok) => {
    expect(allowed(path, spec)).toBe(ok);
  });
});
