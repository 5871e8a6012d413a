#!/usr/bin/env node
/**
 * Run in the shared build stage (infra/docker/build.Dockerfile): writes each built component's run-time tree
 * to <out>/<name>, which its image copies whole. Usage: node deploy-cli.js <repo root> <out>
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { COMPONENTS } from "./components.js";
import { planLayout, writeLayout } from "./deploy.js";

const [root, out] = process.argv.slice(2);
if (!root || !out) {
  console.error("usage: deploy-cli <repo root> <out dir>");
  process.exit(2);
}
for (const c of COMPONENTS.filter((c) => c.built)) {
  const layout = planLayout(root, c.workspace);
  rmSync(join(out, c.name), { recursive: true, force: true });
  writeLayout(root, layout, join(out, c.name));
  console.log(
    `deploy: ${c.name}: ${layout.packages.length} packages, ${layout.links.length} workspace links`,
  );
}
