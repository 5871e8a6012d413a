import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { KEY_DOCS } from "../key-docs.js";
import { configReference, renderConfigReference } from "../reference.js";

const page = join(dirname(fileURLToPath(import.meta.url)), "../../../../docs/config.md");

describe("docs/config.md, the thaw.config.yaml reference", () => {
  const rows = configReference();

  it("is what the schema generates (run `npm run docs:config` after changing the schema)", () => {
    expect(readFileSync(page, "utf8")).toBe(renderConfigReference(rows));
  });

  it("describes every key of the schema, and only those", () => {
    const undescribed = rows.filter((r) => r.description === "").map((r) => r.path);
    expect(undescribed, "add them to packages/config/src/key-docs.ts").toEqual([]);
    const paths = new Set(rows.map((r) => r.path));
    expect(
      Object.keys(KEY_DOCS).filter((k) => !paths.has(k)),
      "keys the schema no longer has",
    ).toEqual([]);
  });

  it("shows types, defaults and nested keys from the schema itself", () => {
    const row = (path: string) => rows.find((r) => r.path === path);
    expect(row("services[].timeoutSeconds")).toMatchObject({ type: "integer 1–600", default: "300" });
    expect(row("services[].run.portEnv")).toMatchObject({ type: "string", default: "PORT" });
    expect(row("services[].name")).toMatchObject({ required: true });
    expect(row("headersTimeout")?.type).toBe("duration");
    expect(row("services[].containerPortName")?.type).toBe("`http1` or `h2c`");
    expect(row("services[].kubernetes.resources.limits.memory")?.type).toBe("Kubernetes quantity");
  });
});
