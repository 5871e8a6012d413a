#!/usr/bin/env node
// `npm run release:check`: packs every public package (dry run) and checks what a user would get: the
// metadata a registry needs, internal ranges that resolve once published, the same LICENSE as the root,
// a README that carries the package's checked example, executable bins, and only the files a user needs.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { publicPackages, root } from "./workspace.mjs";

const examplesDir = new URL("../examples/", import.meta.url).pathname;

// What a tarball may hold: compiled ESM and its types, committed launchers, and npm's own files.
const allowedFile = /^(README\.md|LICENSE|package\.json|dist\/.+\.(js|d\.ts)|bin\/[a-z-]+\.mjs)$/;
// ... and never compiled tests.
const testFile = /\.(test|spec)\.(js|d\.ts)$/;

// Core packages have no third-party runtime dependency, with one reasoned exception: @thaw/config is the
// schema of thaw.config.yaml, so its validator and its YAML reader are what the package is.
const coreDependencyAllowed = { "@thaw/config": ["valibot", "yaml"] };

/** Dry-run packs of the given packages in one npm call: name -> `{ size, unpackedSize, entryCount, files }`. */
export function dryRunPacks(pkgs) {
  const args = ["pack", "--dry-run", "--json", "--ignore-scripts", ...pkgs.flatMap((p) => ["-w", p.dir])];
  const out = execFileSync("npm", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return new Map(JSON.parse(out).map((p) => [p.name, p]));
}

/** The example files of a package (tools/consumer-test/examples/<short name>[.kind].{ts,yaml}). */
export function examplesOf(name) {
  const short = name.replace(/^@thaw\//, "");
  const re = new RegExp(`^${short}(\\.[a-z]+)*\\.(ts|yaml)$`);
  return readdirSync(examplesDir)
    .filter((f) => re.test(f))
    .sort();
}

function gitMode(path) {
  const line = execFileSync("git", ["ls-files", "-s", "--", path], { cwd: root, encoding: "utf8" });
  return line.split(" ")[0] || undefined;
}

function exportTargets(exp) {
  if (typeof exp === "string") return [exp];
  if (!exp || typeof exp !== "object") return [];
  return Object.values(exp).flatMap(exportTargets);
}

/** Every problem with one package, as `name: problem` lines (empty when it is ready to publish). */
export function packageIssues(pkg, packed, all) {
  const issues = [];
  const bad = (msg) => issues.push(`${pkg.name}: ${msg}`);
  const m = pkg.manifest;
  const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const license = readFileSync(join(root, "LICENSE"), "utf8");
  const versions = new Map(all.map((p) => [p.name, p.version]));

  if (m.license !== "Apache-2.0") bad(`license is ${JSON.stringify(m.license)}, expected "Apache-2.0"`);
  const own = join(root, pkg.dir, "LICENSE");
  if (!existsSync(own)) bad(`no LICENSE: copy the root LICENSE to ${pkg.dir}/LICENSE`);
  else if (readFileSync(own, "utf8") !== license) bad(`${pkg.dir}/LICENSE differs from the root LICENSE`);
  if (m.repository?.url !== rootManifest.repository?.url)
    bad(`repository.url must be the root's ${JSON.stringify(rootManifest.repository?.url)}`);
  if (m.repository?.directory !== pkg.dir) bad(`repository.directory must be "${pkg.dir}"`);
  if (m.engines?.node !== rootManifest.engines.node)
    bad(`engines.node must be the root's "${rootManifest.engines.node}"`);
  if (m.publishConfig?.access !== "public") bad(`publishConfig.access must be "public"`);

  for (const field of ["dependencies", "peerDependencies", "optionalDependencies", "devDependencies"]) {
    for (const [dep, range] of Object.entries(m[field] ?? {})) {
      const v = versions.get(dep);
      if (v === undefined) {
        if (field === "dependencies" && pkg.dir.startsWith("packages/")) {
          if (!coreDependencyAllowed[pkg.name]?.includes(dep))
            bad(
              `core package with a runtime dependency on ${dep}: make it a peer, or move the code to an app`,
            );
        }
        continue;
      }
      if (range !== `^${v}` && range !== v)
        bad(
          `${field}.${dep} is ${JSON.stringify(range)}; use "^${v}" (the workspace version) so it resolves once published`,
        );
    }
  }

  const files = packed.files.map((f) => f.path);
  for (const f of files)
    if (!allowedFile.test(f) || testFile.test(f)) bad(`packs ${f}, which a user does not need`);
  for (const need of ["README.md", "LICENSE", "package.json"])
    if (!files.includes(need)) bad(`the tarball has no ${need}`);
  for (const t of exportTargets(m.exports))
    if (!files.includes(t.replace(/^\.\//, "")))
      bad(`exports target ${t} is not in the tarball (not built?)`);
  for (const [bin, target] of Object.entries(m.bin ?? {})) {
    const path = target.replace(/^\.\//, "");
    if (!files.includes(path)) bad(`bin ${bin} (${path}) is not in the tarball`);
    const text = existsSync(join(root, pkg.dir, path)) ? readFileSync(join(root, pkg.dir, path), "utf8") : "";
    if (!text.startsWith("#!/usr/bin/env ")) bad(`bin ${bin} (${path}) has no #!/usr/bin/env line`);
    if (gitMode(`${pkg.dir}/${path}`) !== "100755")
      bad(`bin ${bin} (${path}) is not committed as executable: git add --chmod=+x ${pkg.dir}/${path}`);
  }

  const readmePath = join(root, pkg.dir, "README.md");
  const readme = existsSync(readmePath) ? readFileSync(readmePath, "utf8") : "";
  if (!readme) bad(`no README.md`);
  for (const heading of ["## Install", "## Example", "## API"])
    if (readme && !readme.includes(`\n${heading}`)) bad(`README.md has no "${heading}" section`);
  const examples = examplesOf(pkg.name);
  if (examples.length === 0) bad(`no example in tools/consumer-test/examples/ for ${pkg.name}`);
  for (const ex of examples) {
    const body = readFileSync(join(examplesDir, ex), "utf8").trim();
    if (readme && !readme.includes(body))
      bad(`README.md does not show tools/consumer-test/examples/${ex} as it is (copy it verbatim)`);
  }
  return issues;
}

/** Packs every public package (dry run) and checks each: `{ rows, issues }`. */
export function releaseCheck() {
  const pkgs = publicPackages();
  const packs = dryRunPacks(pkgs);
  const issues = [];
  const rows = [];
  for (const pkg of pkgs) {
    const packed = packs.get(pkg.name);
    if (!packed) {
      issues.push(`${pkg.name}: npm pack did not pack it`);
      continue;
    }
    issues.push(...packageIssues(pkg, packed, pkgs));
    rows.push({
      name: pkg.name,
      size: packed.size,
      unpackedSize: packed.unpackedSize,
      files: packed.entryCount,
    });
  }
  return { rows, issues };
}

if (process.argv[1] && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url) {
  const { readCommandLine } = await import("@thaw/command-line/node");
  readCommandLine(
    {
      name: "npm run release:check --",
      summary:
        "packs every public package (dry run) and checks what a user would get: registry metadata, internal ranges, the LICENSE, a README with the package's checked example, executable bins, only the files a user needs; exits 1 with one line per issue",
      flags: [],
    },
    process.argv.slice(2),
    import.meta.url,
  );
  const { rows, issues } = releaseCheck();
  const kb = (n) => `${(n / 1000).toFixed(1)} kB`;
  for (const r of rows)
    process.stdout.write(
      `${r.name.padEnd(26)} ${kb(r.size).padStart(9)} packed ${kb(r.unpackedSize).padStart(9)} unpacked ${String(r.files).padStart(3)} files\n`,
    );
  for (const i of issues) process.stderr.write(`release:check: ${i}\n`);
  process.stdout.write(`release:check: ${rows.length} packages, ${issues.length} issues\n`);
  process.exitCode = issues.length > 0 ? 1 : 0;
}
