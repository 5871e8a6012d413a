// `npm run pack:local [-- <dir>]`: packs every public package of this checkout into <dir> (default
// `packed/`), so a project can install them before they are published: `npm install <dir>/*.tgz`
// installs them together, their @thaw/* ranges met by each other. The consumer test installs the same way.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync } from "node:fs";
import { resolve } from "node:path";
import { publicPackages, root } from "./workspace.mjs";

const dest = resolve(process.argv[2] ?? resolve(root, "packed"));
mkdirSync(dest, { recursive: true });
const pkgs = publicPackages();
execFileSync("npm", ["pack", "--pack-destination", dest, ...pkgs.flatMap((p) => ["-w", p.dir])], {
  cwd: root,
  stdio: ["ignore", "ignore", "inherit"],
});
const made = readdirSync(dest).filter((f) => f.endsWith(".tgz"));
console.log(`${made.length} tarballs in ${dest}; in your project: npm install ${dest}/*.tgz`);
