// `npm run pack:local [-- <dir>]`: packs every public package of this checkout into <dir> (default
// `packed/`), so a project can install them before they are published: `npm install <dir>/*.tgz`
// installs them together, their @thaw/* ranges met by each other. The consumer test installs the same way.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { readCommandLine } from "@thaw/command-line/node";
import { publicPackages, root } from "./workspace.mjs";

const { positionals } = readCommandLine(
  {
    name: "npm run pack:local --",
    summary:
      "packs every public package of this checkout into DIR, so a project can `npm install DIR/*.tgz` them together before they are published",
    usage: "[DIR]",
    maxPositionals: 1,
    flags: [],
    more: "DIR defaults to packed/ at the repository's root.",
  },
  process.argv.slice(2),
  import.meta.url,
);
const dest = resolve(positionals[0] ?? resolve(root, "packed"));
mkdirSync(dest, { recursive: true });
const pkgs = publicPackages();
execFileSync("npm", ["pack", "--pack-destination", dest, ...pkgs.flatMap((p) => ["-w", p.dir])], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});
const made = readdirSync(dest).filter((f) => f.endsWith(".tgz"));
console.log(`${made.length} tarballs in ${dest}; in your project: npm install ${dest}/*.tgz`);
