/** `npm run release:check` as a test: each public package's metadata, LICENSE, README, bins and files. */
import { describe, expect, it } from "vitest";
import { dryRunPacks, packageIssues } from "../src/release-check.mjs";
import { packages } from "./project.js";

const packs = dryRunPacks(packages);

describe.each(packages.map((p) => ({ name: p.name, pkg: p })))("$name is ready to publish", ({ pkg }) => {
  it("has registry metadata, internal ranges that resolve, the root LICENSE, a README with its example, executable bins and only needed files", () => {
    const packed = packs.get(pkg.name);
    expect(packed, "npm pack --dry-run packed it").toBeDefined();
    expect(packageIssues(pkg, packed!, packages)).toEqual([]);
  });
});

it("the release check itself notices a problem (a package with a '*' range and a stray file)", () => {
  const pkg = packages[0]!;
  const broken = { ...pkg, manifest: { ...pkg.manifest, dependencies: { [packages[1]!.name]: "*" } } };
  const packed = packs.get(pkg.name)!;
  const withStray = { ...packed, files: [...packed.files, { path: "dist/x.test.js" }] };
  const issues = packageIssues(broken, withStray, packages);
  expect(issues.some((i: string) => i.includes(`dependencies.${packages[1]!.name} is "*"`))).toBe(true);
  expect(issues.some((i: string) => i.includes("packs dist/x.test.js"))).toBe(true);
});
