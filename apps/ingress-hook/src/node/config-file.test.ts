import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadHookConfig } from "./config-file.js";

describe("loadHookConfig (thaw.config.yaml through @thaw/config)", () => {
  const dir = mkdtempSync(join(tmpdir(), "thaw-hook-config-"));
  it("turns services into the hook's host/path table", async () => {
    const file = join(dir, "ok.yaml");
    writeFileSync(
      file,
      "services:\n  - name: hello\n    hosts: [hello.localhost]\n    paths: [/api]\n    run: { command: [node, server.js] }\n",
    );
    const { services } = await loadHookConfig(file);
    expect(services).toEqual([
      { name: "hello", namespace: "default", hosts: ["hello.localhost"], paths: ["/api"] },
    ]);
  });
  it("throws with the field path of each issue", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      "services:\n  - name: hello\n    hosts: [hello.localhost]\n    paths: [api]\n    run: { command: [node] }\n",
    );
    await expect(loadHookConfig(file)).rejects.toThrow(/services\[0\]\.paths\[0\]|services\.0\.paths\.0/);
  });
});
