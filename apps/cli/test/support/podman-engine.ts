import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** busybox applets the image's shell scripts (the CGI, health checks) call. */
const APPLETS = ["sh", "sleep", "test", "touch", "cat", "printf", "rm", "sed", "wget"];

const SLOW_CGI = [
  "#!/bin/sh",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion inside the container, not JS
  'sleep "${SLOW:-0.3}"',
  "printf 'Content-Type: text/plain\\r\\n\\r\\nslow from port %s\\n' \"$PORT\"",
  "",
].join("\n");

/** A podman API service on a socket in a temp folder, with its own storage, config and run root. */
export interface PodmanEngine {
  dir: string;
  socket: string;
  /** Runs the podman CLI against the same storage. */
  podman(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Starts `podman system service` with runc and cgroupfs (crun refuses this host's hybrid cgroups), storage
 * under a temp folder (the host's is never read or written), and imports a busybox-static image built from
 * Debian's .deb (no registry): `localhost/thaw-test/httpd:1`, busybox httpd on $PORT (default 8080).
 */
export async function startPodman(): Promise<PodmanEngine> {
  const dir = mkdtempSync(join(tmpdir(), "thaw-podman-"));
  const conf = join(dir, "containers.conf");
  writeFileSync(
    conf,
    [
      "[containers]",
      'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]',
      'log_driver = "k8s-file"',
      "[engine]",
      'runtime = "runc"',
      'cgroup_manager = "cgroupfs"',
      'events_logger = "file"',
      `tmp_dir = "${join(dir, "run", "libpod")}"`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(dir, "policy.json"), '{"default":[{"type":"insecureAcceptAnything"}]}');
  const env = { ...process.env, CONTAINERS_CONF: conf };
  const base = ["--root", join(dir, "storage"), "--runroot", join(dir, "run"), "--storage-driver", "overlay"];
  const podman = async (args: string[]) => (await run("podman", [...base, ...args], { env })).stdout;
  // The image: busybox-static alone, its httpd serving one file on $PORT.
  const root = join(dir, "rootfs");
  mkdirSync(join(root, "bin"), { recursive: true });
  mkdirSync(join(root, "www"), { recursive: true });
  await run("dpkg-deb", ["-x", await busyboxDeb(), join(dir, "deb")]);
  await run("cp", [join(dir, "deb/bin/busybox"), join(root, "bin/busybox")]);
  for (const applet of APPLETS) symlinkSync("busybox", join(root, "bin", applet));
  // Debian's merged /usr layout: a container that mounts the host's /usr read-only (to run the host's
  // node, see containers-drain.test.ts) finds its libraries and loader where they are on the host.
  symlinkSync("usr/lib", join(root, "lib"));
  symlinkSync("usr/lib64", join(root, "lib64"));
  writeFileSync(join(root, "www/index.html"), "hello from a container\n");
  // What docs/containers.md's health check fetches.
  writeFileSync(join(root, "www/healthz"), "ok\n");
  // /cgi-bin/slow answers after $SLOW seconds (default 0.3) with the port it serves on: a request that takes a
  // while, so a burst needs replicas, and says which replica answered.
  mkdirSync(join(root, "www/cgi-bin"));
  writeFileSync(join(root, "www/cgi-bin/slow"), SLOW_CGI, { mode: 0o755 });
  await run("tar", ["-C", root, "-cf", join(dir, "img.tar"), "."]);
  await podman([
    "import",
    "--signature-policy",
    join(dir, "policy.json"),
    "--change",
    // httpd in the background of a shell that exits on SIGTERM: as PID 1 httpd would ignore the engine's stop.
    `CMD ["/bin/busybox","sh","-c","trap 'exit 0' TERM; /bin/busybox httpd -f -p 127.0.0.1:\${PORT:-8080} -h /www & wait"]`,
    join(dir, "img.tar"),
    "localhost/thaw-test/httpd:1",
  ]);
  const socket = join(dir, "podman.sock");
  const service: ChildProcess = spawn(
    "podman",
    [...base, "system", "service", "--time=0", `unix://${socket}`],
    {
      env,
      stdio: "ignore",
    },
  );
  for (let i = 0; i < 200 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(socket)) throw new Error("podman system service did not create its socket in 10 s");
  return {
    dir,
    socket,
    podman,
    async stop() {
      await podman(["rm", "-af", "-t", "1"]).catch(() => "");
      if (service.exitCode === null) {
        service.kill("SIGTERM");
        await new Promise((r) => service.once("exit", r));
      }
      // The overlay driver mounts its storage folder on itself (and a stopping container's layers): rm meets
      // EBUSY until they are unmounted, deepest first. A container's cleanup may mount once more after the
      // table was read (seen once in CI: EBUSY on storage/overlay), so the table is read again each try.
      for (let attempt = 1; ; attempt++) {
        for (const m of mountsUnder(dir)) await run("umount", ["-l", m]).catch(() => undefined);
        try {
          // conmon may still be writing its exit files under run/ for a moment (ENOTEMPTY): retried, bounded.
          rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "EBUSY" || attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    },
  };
}

/** Mount points at or below `dir` in this process's mount table, deepest first. */
function mountsUnder(dir: string): string[] {
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    // Field 5 is the mount point, with space, tab, newline and backslash written as octal escapes.
    .map((l) =>
      (l.split(" ")[4] ?? "").replace(/\\([0-7]{3})/g, (_, o: string) =>
        String.fromCharCode(Number.parseInt(o, 8)),
      ),
    )
    .filter((m) => m === dir || m.startsWith(`${dir}/`));
  return points.sort((a, b) => b.length - a.length);
}

/**
 * Debian's busybox-static .deb, downloaded once into the user's cache (~/.cache/thaw/debs) and reused by
 * every podman test file after: any version serves, the image only needs its shell and httpd.
 */
async function busyboxDeb(): Promise<string> {
  const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "thaw", "debs");
  const cached = () => readdirSync(cache).find((f) => /^busybox-static_.*\.deb$/.test(f));
  mkdirSync(cache, { recursive: true });
  let deb = cached();
  if (!deb) {
    // Downloaded into a folder of its own, then moved: a test file running beside never sees half a file.
    const part = mkdtempSync(join(cache, "download-"));
    try {
      await run("apt-get", ["download", "-o", "APT::Sandbox::User=root", "busybox-static"], { cwd: part });
      const got = readdirSync(part).find((f) => f.endsWith(".deb"));
      if (!got) throw new Error("apt-get download busybox-static wrote no .deb (run apt-get update?)");
      renameSync(join(part, got), join(cache, got));
    } finally {
      rmSync(part, { recursive: true, force: true });
    }
    deb = cached() as string;
  }
  return join(cache, deb);
}
