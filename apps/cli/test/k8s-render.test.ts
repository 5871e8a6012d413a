/**
 * `thaw k8s render`: the checked-in infra/kubernetes is the generator's output byte for byte, the
 * command's stdout mode and its refusals. No cluster or API server runs here.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { k8sRenderCommand } from "../src/k8s/command.js";
import { validateCommand } from "../src/validate.js";
import { EXAMPLE, exampleFiles, INFRA, listFiles } from "./k8s/fixtures.js";

describe("infra/kubernetes is thaw k8s render's output for examples/hello/thaw.k8s.yaml", () => {
  it("every file matches byte for byte, and there is no other file", () => {
    const files = exampleFiles();
    const onDisk = listFiles(INFRA)
      .map((p) => relative(INFRA, p))
      .sort();
    expect(onDisk).toEqual([...files.keys()].sort());
    for (const [path, body] of files) {
      expect(readFileSync(join(INFRA, path), "utf8"), `${path} differs: run thaw k8s render again`).toBe(
        body,
      );
    }
  });

  it("thaw k8s render without --out prints the same files, and the example config validates", async () => {
    const r = await k8sRenderCommand(["--config", EXAMPLE]);
    expect(r.code).toBe(0);
    for (const [path, body] of exampleFiles()) expect(r.stdout).toContain(`# --- ${path}\n${body}`);
    expect((await validateCommand(EXAMPLE)).code).toBe(0);
  });

  it("renders the same bytes twice", () => {
    expect([...exampleFiles()]).toEqual([...exampleFiles()]);
  });
});

describe("thaw k8s render refuses what it cannot render, naming the field", () => {
  it("a token in the config, a run: service and a service without image", async () => {
    const { mkdtemp, writeFile } = await import("node:fs/promises");
    const { tmpdir } = await import("node:os");
    const dir = await mkdtemp(join(tmpdir(), "thaw-k8s-"));
    const file = join(dir, "thaw.config.yaml");
    await writeFile(
      file,
      [
        "token: 0123456789abcdef0123",
        "services:",
        "  - { name: a, hosts: [a.localhost], run: { command: [node, a.js] } }",
        "  - { name: b, kubernetes: { deployment: b } }",
      ].join("\n"),
    );
    const r = await k8sRenderCommand(["--config", file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("token: would be written into a ConfigMap");
    expect(r.stderr).toContain("services[0].run: would start local processes");
    expect(r.stderr).toContain("services[1].kubernetes.image: is required by thaw k8s render");
    const bad = await k8sRenderCommand(["--config", file, "--gateway", "nope"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--gateway must be namespace/name");
  });
});
