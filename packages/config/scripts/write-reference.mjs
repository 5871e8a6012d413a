// `npm run docs:config`: writes docs/config.md from the built schema (packages/config/dist).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configReference, renderConfigReference } from "../dist/index.js";

const page = join(dirname(fileURLToPath(import.meta.url)), "../../../docs/config.md");
const rows = configReference();
writeFileSync(page, renderConfigReference(rows));
const missing = rows.filter((r) => r.description === "").map((r) => r.path);
console.log(`docs/config.md: ${rows.length} keys`);
if (missing.length > 0) {
  console.error(`no description in packages/config/src/key-docs.ts for: ${missing.join(", ")}`);
  process.exitCode = 1;
}
