import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfigFile } from "./load.js";

async function file(text: string): Promise<string> {
  const p = join(await mkdtemp(join(tmpdir(), "thaw-config-")), "thaw.config.yaml");
  await writeFile(p, text);
  return p;
}

describe("loadConfigFile", () => {
  it("reads YAML", async () => {
    const r = await loadConfigFile(
      await file(
        "services:\n  - name: hello\n    hosts: [hello.localhost]\n    run: { command: [node, s.js] }\n",
      ),
    );
    expect(r.ok && r.value.services[0]?.name).toBe("hello");
  });

  it("reports YAML syntax errors with a line", async () => {
    const r = await loadConfigFile(await file("services:\n  - name: [unclosed\n"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/^YAML syntax/);
  });

  it("reports a missing file", async () => {
    const r = await loadConfigFile("/nonexistent/thaw.config.yaml");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]?.message).toMatch(/cannot read/);
  });
});
