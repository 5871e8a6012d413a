import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const read = (f: string) => readFileSync(join(root, f), "utf8");

describe("benchmark figures live in docs/bench.md, not in the CLI's README", () => {
  it("apps/cli/README.md carries no dated run and points at docs/bench.md", () => {
    const readme = read("apps/cli/README.md");
    expect(readme.match(/\(20\d\d-\d\d-\d\d[^)]*\)/g) ?? []).toEqual([]);
    expect(readme).toContain("docs/bench.md");
  });

  it("docs/bench.md has the cold-start figures", () => {
    expect(read("docs/bench.md")).toMatch(/## Cold-start overhead[\s\S]*p50 [\d.]+ ms/);
  });
});
