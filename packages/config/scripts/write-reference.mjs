// `npm run docs:config`: writes docs/config.md from the built schema (packages/config/dist).
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readCommandLine } from "@thaw/command-line/node";
import { configReference, renderConfigReference } from "../dist/index.js";

readCommandLine(
  {
    name: "npm run docs:config --",
    summary:
      "writes docs/config.md, the reference of every thaw.config.yaml key, from the built schema and packages/config/src/key-docs.ts; exits 1 naming any key without a description",
    flags: [],
  },
  process.argv.slice(2),
  import.meta.url,
);

const page = join(dirname(fileURLToPath(import.meta.url)), "../../../docs/config.md");
const rows = configReference();
writeFileSync(page, renderConfigReference(rows));
const missing = rows.filter((r) => r.description === "").map((r) => r.path);
console.log(`docs/config.md: ${rows.length} keys`);
if (missing.length > 0) {
  console.error(`no description in packages/config/src/key-docs.ts for: ${missing.join(", ")}`);
  process.exitCode = 1;
}
