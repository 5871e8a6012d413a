import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Every package README whose install line names a Thaw package. */
function readmesWithInstallLines(): string[] {
  const found: string[] = [];
  for (const parent of ["apps", "packages"]) {
    for (const dir of readdirSync(join(root, parent))) {
      const file = join(parent, dir, "README.md");
      let text: string;
      try {
        text = readFileSync(join(root, file), "utf8");
      } catch {
        continue;
      }
      if (/npm install (--save-dev )?(@thaw\/|thaw\b)/.test(text)) found.push(file);
    }
  }
  return found;
}

describe("install lines say the packages are not published yet", () => {
  it("every README with an npm install line of a Thaw package says how to install from a checkout", () => {
    const files = readmesWithInstallLines();
    expect(files.length).toBeGreaterThan(5);
    const silent = files.filter((f) => {
      const text = readFileSync(join(root, f), "utf8");
      return !(text.includes("Not published to npm yet") && /npm run\s+pack:local/.test(text));
    });
    expect(silent, "add the 'Not published to npm yet' paragraph under ## Install").toEqual([]);
  });

  it("the root README says it, and the pack:local script it names exists", () => {
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain("None is published to npm yet");
    const scripts = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).scripts;
    expect(scripts["pack:local"]).toMatch(/pack-local\.mjs/);
  });
});
