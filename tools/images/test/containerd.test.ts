/**
 * Import into a real containerd: a private one (no CRI plugin, its own root, state and socket in a temp
 * folder) is started, the queue-proxy and example-hello images go in with importIntoContainerd, and ctr lists
 * them under namespace k8s.io. The daemon is stopped by PID.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildImages, imageRef } from "../src/build.js";
import { COMPONENTS } from "../src/components.js";
import { importIntoContainerd } from "../src/containerd.js";
import { setupPodman } from "../src/podman.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "thaw-ctrd-"));
const socket = join(dir, "containerd.sock");
let daemon: ChildProcess | undefined;

beforeAll(async () => {
  writeFileSync(
    join(dir, "config.toml"),
    [
      "version = 2",
      `root = "${join(dir, "root")}"`,
      `state = "${join(dir, "state")}"`,
      'disabled_plugins = ["io.containerd.grpc.v1.cri"]',
      "[grpc]",
      `  address = "${socket}"`,
      "[ttrpc]",
      `  address = "${socket}.ttrpc"`,
      "",
    ].join("\n"),
  );
  daemon = spawn("containerd", ["--config", join(dir, "config.toml")], { stdio: "ignore" });
  // Ready when ctr answers on the socket: bounded to 100 tries (30 s).
  for (let i = 0; i < 100; i++) {
    if (existsSync(socket)) {
      try {
        execFileSync("ctr", ["--address", socket, "version"], { stdio: "ignore" });
        break;
      } catch {}
    }
    await new Promise((r) => setTimeout(r, 300));
  }
});

afterAll(async () => {
  if (daemon?.pid && daemon.exitCode === null) {
    const gone = new Promise((r) => daemon?.once("exit", r));
    daemon.kill("SIGTERM");
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

it("imports built images into containerd's k8s.io namespace", async () => {
  const pm = setupPodman();
  const names = ["queue-proxy", "example-hello"];
  await buildImages(pm, ROOT, { only: names, log: () => {} });
  const refs = COMPONENTS.filter((c) => names.includes(c.name)).map((c) => imageRef(ROOT, c));
  await importIntoContainerd(pm, socket, refs);
  const listed = execFileSync("ctr", ["--address", socket, "-n", "k8s.io", "images", "ls", "-q"], {
    encoding: "utf8",
  });
  for (const ref of refs) expect(listed.split("\n")).toContain(ref);
  // The build is reused when the tree is unchanged, else redone (its build stage took 48 s at load 14 in
  // CI, the whole test more than the suite's 120 s): bounded at 10 min, as .ci/run bounds its builds.
}, 600_000);

it("names the socket and the fix when no containerd listens there", async () => {
  const pm = setupPodman();
  const ref = imageRef(
    ROOT,
    COMPONENTS.find((c) => c.name === "example-hello") as (typeof COMPONENTS)[number],
  );
  const missing = join(dir, "nothing.sock");
  await expect(importIntoContainerd(pm, missing, [ref])).rejects.toThrow(
    new RegExp(
      `ctr images import into ${missing} failed[\\s\\S]*is containerd running with its socket at ${missing}`,
    ),
  );
});
