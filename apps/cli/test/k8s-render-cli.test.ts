/**
 * `thaw k8s render` as a user runs it (the built bin, a child process): a bad flag value is refused with
 * exit 2 and one line naming the flag, the value and the rule; a render into a folder removes the files
 * it wrote last time and no longer writes, and nothing else.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE, ROOT } from "./k8s/fixtures.js";

const BIN = join(ROOT, "apps/cli/bin/thaw.mjs");

/** Runs the bin to completion (bounded: killed after 60 s). */
function thaw(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "thaw-k8s-cli-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("thaw k8s render validates its flags", () => {
  const cases: [string[], RegExp][] = [
    [["--system-namespace", "Bad_NS"], /--system-namespace "Bad_NS" is not a DNS-1123 label/],
    [["--ingress-namespaces", "a b,C"], /--ingress-namespaces "a b" is not a DNS-1123 label/],
    [["--ingress-namespaces", "ok,C"], /--ingress-namespaces "C" is not a DNS-1123 label/],
    [["--istio-namespace", "-istio"], /--istio-namespace "-istio" is not a DNS-1123 label/],
    [["--ingress-class", "Nginx!"], /--ingress-class "Nginx!" is not a DNS-1123 subdomain/],
    [["--gateway", "default/Eg_1"], /--gateway "Eg_1" is not a DNS-1123 subdomain/],
    [["--gateway", "Default/eg"], /--gateway "Default" is not a DNS-1123 label/],
    [["--gateway", "edge/eg/extra"], /--gateway must be namespace\/name, got edge\/eg\/extra/],
    [
      ["--image-registry", "ghcr.io/Thaw Dev"],
      /--image-registry "ghcr.io\/Thaw Dev" is not an image repository prefix/,
    ],
    [["--image-tag", "1.0:latest"], /--image-tag "1.0:latest" is not an image tag/],
    [["--image-tag", ".hidden"], /--image-tag ".hidden" is not an image tag/],
  ];
  for (const [flags, want] of cases) {
    it(`${flags.join(" ")}: exit 2, one line`, () => {
      const r = thaw(["k8s", "render", "--config", EXAMPLE, ...flags]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(want);
    });
  }

  it("valid values render (a registry with a port, a dotted class, a subdomain gateway)", () => {
    const r = thaw([
      "k8s",
      "render",
      "--config",
      EXAMPLE,
      "--image-registry",
      "registry.example:5000/team/thaw",
      "--image-tag",
      "1.2.3-rc_1",
      "--ingress-class",
      "nginx.internal",
      "--gateway",
      "edge/eg.public",
      "--ingress-namespaces",
      "ingress-nginx,istio-system",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("image: registry.example:5000/team/thaw/activator:1.2.3-rc_1");
  });
});

describe("a render removes what it wrote before and no longer writes, nothing else", () => {
  it("a removed service's file goes; a user's files stay", async () => {
    const service = (name: string) => ({
      name,
      namespace: "shop",
      hosts: [`${name}.example.com`],
      kubernetes: { deployment: name, image: `registry.example/${name}:1` },
    });
    const config = join(dir, "thaw.config.yaml");
    const out = join(dir, "k8s");
    await writeFile(config, JSON.stringify({ services: [service("cart"), service("catalog")] }));
    expect(thaw(["k8s", "render", "--config", config, "--out", out]).code).toBe(0);
    expect(existsSync(join(out, "services/shop-catalog.yaml"))).toBe(true);
    // The user's own files: one next to the rendered services, one in a folder of their own.
    await writeFile(join(out, "services/extra-patch.yaml"), "# mine\n");
    await mkdir(join(out, "local"), { recursive: true });
    await writeFile(join(out, "local/notes.md"), "mine\n");

    await writeFile(config, JSON.stringify({ services: [service("cart")] }));
    const r = thaw(["k8s", "render", "--config", config, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("removed services/shop-catalog.yaml");
    expect(existsSync(join(out, "services/shop-catalog.yaml"))).toBe(false);
    expect(existsSync(join(out, "services/shop-cart.yaml"))).toBe(true);
    expect(await readFile(join(out, "services/extra-patch.yaml"), "utf8")).toBe("# mine\n");
    expect(await readFile(join(out, "local/notes.md"), "utf8")).toBe("mine\n");
    expect(await readFile(join(out, "services/kustomization.yaml"), "utf8")).not.toContain("catalog");
  });

  it("a hand-edited list cannot make it delete outside the output folder", async () => {
    const out = join(dir, "guarded");
    const outside = join(dir, "outside.txt");
    await writeFile(outside, "keep\n");
    expect(thaw(["k8s", "render", "--config", EXAMPLE, "--out", out]).code).toBe(0);
    const list = join(out, ".thaw-rendered");
    await writeFile(list, `${await readFile(list, "utf8")}../outside.txt\n${outside}\n`);
    expect(thaw(["k8s", "render", "--config", EXAMPLE, "--out", out]).code).toBe(0);
    expect(await readFile(outside, "utf8")).toBe("keep\n");
  });
});
