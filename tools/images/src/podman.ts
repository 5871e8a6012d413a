/**
 * A private podman/buildah setup: containers.conf, storage.conf, registries.conf and policy.json written under
 * a state folder, so builds and runs never depend on (or change) the machine's /etc/containers. Reused by
 * anything that runs containers without Kubernetes.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Where images, layers and configs persist between runs (a second build reuses every cached layer). */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "thaw", "images");
}

/** A configured podman: the env that points podman/buildah at the private configs, and where things live. */
export interface Podman {
  /** Cache root: `storage/` (layers), `conf/`, `bases/` (base rootfs work), `logs/`. */
  dir: string;
  /** Process env with CONTAINERS_CONF, CONTAINERS_STORAGE_CONF, CONTAINERS_REGISTRIES_CONF set. */
  env: NodeJS.ProcessEnv;
  /** The signature policy file, passed with `--signature-policy` where podman reads one. */
  policy: string;
}

/** The host limits this machine allows (no CAP_SYS_RESOURCE: nproc above 32768 fails in setrlimit). */
export const ULIMITS = ["nofile=20000:20000", "nproc=32768:32768"];

/**
 * Writes the configs under `dir/conf` and returns the env to run podman/buildah with. runc, not crun (crun
 * refuses hybrid cgroups); cgroupfs, not systemd; no registry search, so an unqualified name never reaches
 * the network. The run root sits on /run (tmpfs), so a reboot clears stale container state.
 */
export function setupPodman(dir: string = defaultCacheDir()): Podman {
  const conf = join(dir, "conf");
  // One run root per storage: two storages sharing one (another cache dir, e.g. through XDG_CACHE_HOME)
  // would share its locks and mount records. The usual ~/.cache one keeps its historical path.
  const suffix =
    resolve(dir) === join(homedir(), ".cache", "thaw", "images")
      ? ""
      : `-${createHash("sha256").update(resolve(dir)).digest("hex").slice(0, 12)}`;
  const runRoot =
    process.getuid?.() === 0
      ? `/run/thaw-images${suffix}`
      : join(process.env.XDG_RUNTIME_DIR || join(dir, "run"), `thaw-images${suffix}`);
  for (const d of [conf, join(dir, "storage"), join(dir, "logs"), runRoot]) mkdirSync(d, { recursive: true });
  const files: Record<string, string> = {
    "containers.conf": [
      "[containers]",
      `default_ulimits = [${ULIMITS.map((u) => `"${u}"`).join(", ")}]`,
      'log_driver = "k8s-file"',
      "[engine]",
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `tmp_dir = "${join(runRoot, "libpod")}"`,
      "",
    ].join("\n"),
    "storage.conf": [
      "[storage]",
      'driver = "overlay"',
      `graphroot = "${join(dir, "storage")}"`,
      `runroot = "${join(runRoot, "storage")}"`,
      "",
    ].join("\n"),
    "registries.conf": ["unqualified-search-registries = []", 'short-name-mode = "enforcing"', ""].join("\n"),
    // Only local images are used (localhost/...), so there is nothing to verify; the machine may have no policy.json.
    "policy.json": `${JSON.stringify({ default: [{ type: "insecureAcceptAnything" }] })}\n`,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(conf, name), text);
  const env = {
    ...process.env,
    CONTAINERS_CONF: join(conf, "containers.conf"),
    CONTAINERS_STORAGE_CONF: join(conf, "storage.conf"),
    CONTAINERS_REGISTRIES_CONF: join(conf, "registries.conf"),
  };
  return { dir, env, policy: join(conf, "policy.json") };
}

/** The outcome of one podman/buildah call. */
export interface RunResult {
  code: number;
  stdout: string;
  /** stdout and stderr interleaved, as a log. */
  log: string;
}

/** Runs a command with the podman env; resolves with its output whatever the exit code. */
export function runTool(
  pm: Podman,
  bin: string,
  args: string[],
  opts: { onLine?: (line: string) => void; cwd?: string } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: pm.env, cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let log = "";
    let partial = "";
    const feed = (chunk: Buffer, out: boolean) => {
      const text = chunk.toString();
      if (out) stdout += text;
      log += text;
      if (log.length > 4_000_000) log = log.slice(-2_000_000);
      if (!opts.onLine) return;
      partial += text;
      const lines = partial.split("\n");
      partial = lines.pop() ?? "";
      for (const l of lines) opts.onLine(l);
    };
    child.stdout.on("data", (c: Buffer) => feed(c, true));
    child.stderr.on("data", (c: Buffer) => feed(c, false));
    child.on("error", (e: NodeJS.ErrnoException) =>
      reject(
        e.code === "ENOENT"
          ? new Error(`${bin} is not installed (not on PATH): install it with apt-get install ${bin}`)
          : e,
      ),
    );
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, log }));
  });
}

/** The last `n` lines of a log, for an error message. */
export function tail(log: string, n = 20): string {
  return log.trimEnd().split("\n").slice(-n).join("\n");
}

/** Runs podman and returns stdout; a failure throws with the command and the end of its output. */
export async function podman(pm: Podman, args: string[]): Promise<string> {
  const r = await runTool(pm, "podman", args);
  if (r.code !== 0) throw new Error(`podman ${args.join(" ")} exited ${r.code}:\n${tail(r.log)}`);
  return r.stdout;
}
