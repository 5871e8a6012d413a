import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ACTIVATOR_CONFIG, GATEWAY_CONFIG, ROOT } from "./wrangler-dev.js";

describe("wrangler deploy --dry-run on the shipped configs (no account, offline)", () => {
  it.each([
    ["the gateway", GATEWAY_CONFIG],
    ["the activator", ACTIVATOR_CONFIG],
  ])("%s builds clean: exit 0, no warning", (_name, config) => {
    const out = mkdtempSync(join(tmpdir(), "thaw-deploy-"));
    try {
      const r = spawnSync(
        join(ROOT, "node_modules/.bin/wrangler"),
        ["deploy", "--dry-run", "--outdir", out, "-c", config],
        {
          encoding: "utf8",
          timeout: 60_000,
          env: {
            ...process.env,
            CI: "true",
            WRANGLER_SEND_METRICS: "false",
            WRANGLER_HIDE_BANNER: "true",
            NO_COLOR: "1",
          },
        },
      );
      const text = `${r.stdout}${r.stderr}`;
      expect(r.status, text).toBe(0);
      expect(text).toMatch(/--dry-run: exiting now/);
      expect(text).not.toMatch(/▲ \[WARNING\]|✘ \[ERROR\]/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
