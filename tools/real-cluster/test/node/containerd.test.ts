import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type Containerd, startContainerd } from "../../src/node/containerd.js";
import { PAUSE_IMAGE } from "../../src/node/image-archive.js";
import { createNodeNetwork, type NodeNetwork, run } from "../../src/node/netns.js";

describe("containerd in a node namespace", () => {
  const dir = mkdtempSync(join(tmpdir(), "thaw-node-"));
  let net: NodeNetwork | undefined;
  let ctrd: Containerd | undefined;
  afterAll(async () => {
    await ctrd?.stop();
    net?.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves CRI from its own socket with the catatonit pause image, and leaves nothing behind", async () => {
    net = createNodeNetwork();
    expect(run("ip", ["netns", "list"])).toContain(net.name);
    ctrd = await startContainerd(join(dir, "containerd"), net);
    const images = run("ctr", ["--address", ctrd.socket, "-n", "k8s.io", "images", "ls", "-q"]);
    expect(images).toContain(PAUSE_IMAGE);
    // containerd really is inside the namespace: its net namespace link differs from ours.
    const pid = ctrd.component.pid;
    expect(run("readlink", [`/proc/${pid}/ns/net`])).not.toBe(run("readlink", ["/proc/self/ns/net"]));
    await ctrd.stop();
    expect(ctrd.component.done).toBe(true);
    expect(existsSync(`/proc/${pid}`)).toBe(false);
    net.remove();
    expect(run("ip", ["netns", "list"])).not.toContain(net.name);
  });
});
