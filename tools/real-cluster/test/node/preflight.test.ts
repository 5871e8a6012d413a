import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { corednsBinary } from "../../src/node/coredns-binary.js";
import { startNode } from "../../src/node/node.js";

// What a person sees when a piece of the node is missing: which one, and the command that fixes it.
describe("a node with a missing piece", () => {
  const saved = process.env.XDG_CACHE_HOME;
  const empty = mkdtempSync(join(tmpdir(), "thaw-empty-cache-"));
  afterEach(() => {
    if (saved === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = saved;
  });

  it("names CoreDNS and its build command when it is not built", () => {
    process.env.XDG_CACHE_HOME = empty;
    expect(() => corednsBinary()).toThrow(
      /CoreDNS is not built \(looked for .*\): run `npm run coredns:build`/,
    );
  });

  it("refuses to start without the kubelet, naming it and the build, before starting anything", async () => {
    process.env.XDG_CACHE_HOME = empty;
    const dir = join(empty, "never-made");
    // No control plane or namespace is needed to get this far: the check comes first.
    const start = startNode({ controlPlane: {} as never, net: { name: "thaw-000000" } as never, dir });
    await expect(start).rejects.toThrow(/kubelet v1\.\d+\.\d+ is not built .*run `npm run k8s:build`/);
    rmSync(empty, { recursive: true, force: true });
  });
});
