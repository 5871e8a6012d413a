import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");

/** The Debian packages `.ci/run` installs: every `need+=(name)`. */
function ciPackages(script: string): string[] {
  return [...script.matchAll(/need\+=\(([^)]+)\)/g)].flatMap((m) => (m[1] as string).trim().split(/\s+/));
}

/** The package names (in backticks) of the README's `ci-packages` block. */
function readmePackages(readme: string): string[] {
  const block = /<!-- ci-packages[^>]*-->([\s\S]*?)<!-- \/ci-packages -->/.exec(readme)?.[1];
  if (block === undefined) throw new Error("README.md has no <!-- ci-packages --> block");
  return [...block.matchAll(/`([a-z0-9][a-z0-9.+-]*)`/g)]
    .map((m) => m[1] as string)
    .filter((name) => !/^(kubectl|apt-get)$/.test(name));
}

describe("README.md says what npm test needs besides Node", () => {
  it("lists exactly the Debian packages .ci/run installs", () => {
    const ci = ciPackages(readFileSync(join(root, ".ci/run"), "utf8"));
    const readme = readmePackages(readFileSync(join(root, "README.md"), "utf8"));
    expect(ci.length).toBeGreaterThan(5);
    expect([...new Set(readme)].sort(), "README.md's ci-packages block against .ci/run's need+=").toEqual(
      [...new Set(ci)].sort(),
    );
  });

  it("names every build .ci/run makes before npm test, and that the real node needs root", () => {
    const ci = readFileSync(join(root, ".ci/run"), "utf8");
    const before = ci.slice(0, ci.search(/^npm test$/m));
    const builds = [
      ...new Set([...before.matchAll(/^[^#\n]*\bnpm run ([a-z0-9:-]+)/gm)].map((m) => m[1] as string)),
    ];
    expect(builds.length).toBeGreaterThan(1);
    const readme = readFileSync(join(root, "README.md"), "utf8");
    // The section that says what `npm test` needs: from "Two commands" to the next heading.
    const section = /## Two commands\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
    const missing = builds.filter((b) => !section.includes(`\`npm run ${b}\``));
    expect(missing, "README.md's Two commands section against .ci/run's builds before npm test").toEqual([]);
    expect(section).toMatch(/runs as root/);
  });
});
