import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitForHttp } from "./http-get.js";

/** The repository's infra/nginx folder. */
/** The hook token infra/nginx/*.conf send in their `proxy_set_header Authorization` lines. */
export const HOOK_TOKEN = "change-me-to-a-long-random-string";

export const INFRA_NGINX = fileURLToPath(new URL("../../../../infra/nginx/", import.meta.url));

/** Finds the nginx binary or fails with what to run (never a skip: the tests need a real nginx). */
export function requireNginx(): string {
  const which = spawnSync("sh", ["-c", "command -v nginx || ls /usr/sbin/nginx"], { encoding: "utf8" });
  const bin = which.stdout.trim().split("\n")[0];
  if (which.status !== 0 || !bin) {
    throw new Error(
      "nginx is not installed: run `bash .ci/run` (it installs it) or `apt-get update && apt-get install -y nginx-light`",
    );
  }
  return bin;
}

/** A free loopback port (listen on 0, close, reuse the number). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** A user-space nginx running a config from infra/nginx with its addresses replaced. */
export interface NginxProcess {
  readonly dir: string;
  readonly child: ChildProcess;
  /** The last 20 kB nginx wrote to stderr. */
  log(): string;
  stop(): Promise<void>;
}

/** Copies `confName` (and the thaw-*.conf files it includes) into a temp prefix, replaces addresses, starts nginx. */
export function startNginx(confName: string, replace: Record<string, string>): NginxProcess {
  const bin = requireNginx();
  const dir = mkdtempSync(join(tmpdir(), "thaw-nginx-"));
  // Started as root, nginx's workers run as nobody: they must be able to write the cache and temp dirs.
  chmodSync(dir, 0o755);
  for (const d of ["tmp", "cache"]) {
    mkdirSync(join(dir, d), { recursive: true });
    chmodSync(join(dir, d), 0o777);
  }
  let conf = readFileSync(join(INFRA_NGINX, confName), "utf8");
  for (const [from, to] of Object.entries(replace)) conf = conf.split(from).join(to);
  writeFileSync(join(dir, "nginx.conf"), conf);
  // The files nginx.conf includes (thaw-proxy.conf, thaw-auth.conf, thaw-grpc.conf) go along unchanged.
  for (const f of readdirSync(INFRA_NGINX))
    if (f.startsWith("thaw-") && f.endsWith(".conf")) copyFileSync(join(INFRA_NGINX, f), join(dir, f));
  const test = spawnSync(bin, ["-t", "-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr"], {
    encoding: "utf8",
  });
  if (test.status !== 0) throw new Error(`nginx -t failed:\n${test.stderr}`);
  const child = spawn(
    bin,
    ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"],
    {
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let log = "";
  child.stderr?.on("data", (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  return {
    dir,
    child,
    log: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          rmSync(dir, { recursive: true, force: true });
          resolve();
          return;
        }
        child.once("exit", () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

/**
 * infra/nginx/nginx.conf on a free loopback port, asking the hook on `hookPort` and sending activator-bound
 * requests to `activatorPort` (when given); resolves once nginx answers HTTP. `h2Port` is its h2c server.
 */
export async function startNginxForHook(
  hookPort: number,
  activatorPort?: number,
): Promise<{ nginx: NginxProcess; port: number; h2Port: number }> {
  const port = await freePort();
  const h2Port = await freePort();
  const nginx = startNginx("nginx.conf", {
    "127.0.0.1:8080": `127.0.0.1:${port}`,
    "127.0.0.1:8081": `127.0.0.1:${h2Port}`,
    "127.0.0.1:8090": `127.0.0.1:${hookPort}`,
    ...(activatorPort ? { "127.0.0.1:8089": `127.0.0.1:${activatorPort}` } : {}),
  });
  await waitForHttp(port);
  return { nginx, port, h2Port };
}
