import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Component, startComponent } from "../process.js";
import { waitReady } from "../ready.js";
import { buildPauseImage, PAUSE_IMAGE } from "./image-archive.js";
import { pidsWithArgs } from "./leftovers.js";
import type { NodeNetwork } from "./netns.js";
import { run } from "./netns.js";

/** Where Debian's containernetworking-plugins put bridge, host-local, loopback and portmap. */
export const CNI_BIN_DIR = "/usr/lib/cni";

/** A containerd whose root, state, socket and CNI configuration all live under one folder. */
export interface Containerd {
  readonly component: Component;
  /** The CRI endpoint for the kubelet: `unix://<dir>/containerd.sock`. */
  readonly endpoint: string;
  readonly socket: string;
  /** Where the CNI conflist goes (read by the CRI plugin on each sandbox). */
  readonly cniConfDir: string;
  /** `ctr -n k8s.io images import <tar>`: a Docker or OCI archive into the CRI's image store. */
  importImage(tar: string): void;
  /**
   * Kills every container it runs, stops containerd by PID, then its shims by PID, and deletes the pods'
   * network namespaces: what the kubelet would have torn down had it deleted the pods first. Idempotent.
   */
  stop(): Promise<void>;
}

/**
 * containerd 1.6's config: CRI on, runc (crun refuses hybrid cgroups) with cgroupfs, and
 * `restrict_oom_score_adj` because the host lacks CAP_SYS_RESOURCE (without it every sandbox fails
 * with "can't get final child's PID from pipe"). Only the plugins a node uses are loaded.
 */
export function containerdConfig(dir: string, cniConfDir: string): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = "${join(dir, "root")}"
state = "${join(dir, "state")}"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.tracing.processor.v1.otlp"]

[grpc]
  address = "${join(dir, "containerd.sock")}"

[ttrpc]
  address = "${join(dir, "containerd.ttrpc.sock")}"

[metrics]
  address = ""

[plugins."io.containerd.internal.v1.opt"]
  path = "${join(dir, "opt")}"

[${cri}]
  sandbox_image = "${PAUSE_IMAGE}"
  restrict_oom_score_adj = true
  enable_selinux = false

[${cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"

[${cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[${cri}.containerd.runtimes.runc.options]
  BinaryName = "/usr/sbin/runc"
  SystemdCgroup = false

[${cri}.cni]
  bin_dir = "${CNI_BIN_DIR}"
  conf_dir = "${cniConfDir}"
  max_conf_num = 1
`;
}

/** Starts containerd inside the node's namespace (nsenter, so /sys and the cgroup mounts stay the host's) and imports the pause image. */
export async function startContainerd(
  dir: string,
  net: NodeNetwork,
  timeoutMs = 30_000,
): Promise<Containerd> {
  for (const bin of ["containerd", "containerd-shim-runc-v2", "runc", "ctr"]) {
    if (!whichSync(bin)) throw new Error(`${bin} is not on PATH: apt-get install containerd runc`);
  }
  if (!existsSync(join(CNI_BIN_DIR, "bridge"))) {
    throw new Error(`${CNI_BIN_DIR}/bridge is missing: apt-get install containernetworking-plugins`);
  }
  const cniConfDir = join(dir, "net.d");
  mkdirSync(cniConfDir, { recursive: true });
  const config = join(dir, "config.toml");
  writeFileSync(config, containerdConfig(dir, cniConfDir));
  const socket = join(dir, "containerd.sock");
  const [cmd, args] = net.inside("containerd", ["--config", config]);
  const component = startComponent("containerd", cmd, args, dir);
  const ctr = (a: string[]) => run("ctr", ["--address", socket, "--namespace", "k8s.io", ...a]);
  // The CRI plugin loads last; "ok" means it found its config and serves.
  const serving = async () =>
    existsSync(socket) &&
    /io\.containerd\.grpc\.v1\s+cri\s+.*\bok\b/.test(run("ctr", ["--address", socket, "plugins", "ls"]));
  await waitReady(component, "serving CRI", serving, Date.now() + timeoutMs);
  const importImage = (tar: string) => {
    ctr(["images", "import", tar]);
  };
  const stop = async () => {
    const podNetns = new Set<string>();
    if (!component.done) {
      for (const id of lines(tryRun(() => ctr(["tasks", "ls", "-q"])))) {
        tryRun(() => ctr(["tasks", "kill", "--all", "--signal", "SIGKILL", id]));
      }
      for (const id of lines(tryRun(() => ctr(["containers", "ls", "-q"])))) {
        for (const m of tryRun(() => ctr(["containers", "info", id])).matchAll(
          /"path":\s*"(\/(?:var\/)?run\/netns\/cni-[^"]+)"/g,
        )) {
          podNetns.add(m[1] as string);
        }
      }
    }
    await component.stop();
    // Shims outlive containerd on purpose (live restore); here they must go too.
    for (const pid of pidsWithArgs(["-address", socket])) tryRun(() => process.kill(pid, "SIGKILL"));
    for (const ns of podNetns) {
      tryRun(() => run("umount", [ns]));
      rmSync(ns, { force: true });
    }
  };
  try {
    importImage(buildPauseImage(dir));
  } catch (e) {
    await stop();
    throw e;
  }
  return { component, endpoint: `unix://${socket}`, socket, cniConfDir, importImage, stop };
}

const lines = (s: string) => s.split("\n").filter(Boolean);

function tryRun<T>(f: () => T): T | "" {
  try {
    return f();
  } catch {
    return "";
  }
}

function whichSync(bin: string): boolean {
  try {
    run("sh", ["-c", `command -v ${bin}`]);
    return true;
  } catch {
    return false;
  }
}
