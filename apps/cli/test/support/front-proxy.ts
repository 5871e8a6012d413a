import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "./up-process.js";

/** A real nginx or Caddy on a loopback port, reverse-proxying everything to one upstream. */
export interface FrontProxy {
  readonly url: string;
  log(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * The common way to put nginx in front of a websocket-capable upstream: an upstream keepalive pool, and
 * `Connection: upgrade` whenever the client sent an Upgrade field (the map nginx's docs show).
 */
function nginxConf(dir: string, port: number, upstream: number): string {
  return `worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  map $http_upgrade $connection_upgrade { default upgrade; "" ""; }
  upstream thaw { server 127.0.0.1:${upstream}; keepalive 8; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://thaw;
      proxy_http_version 1.1;
      proxy_set_header Host $host;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
    }
  }
}
`;
}

/** Caddy's plain reverse_proxy (its transport keeps upstream connections alive). */
function caddyfile(port: number, upstream: number): string {
  return `{
\tadmin off
\tauto_https off
}
http://:${port} {
\tbind 127.0.0.1
\treverse_proxy 127.0.0.1:${upstream}
}
`;
}

/** Starts `kind` on a free loopback port in front of 127.0.0.1:`upstream`; resolves once it answers. */
export async function startFrontProxy(kind: "nginx" | "caddy", upstream: number): Promise<FrontProxy> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `thaw-front-${kind}-`));
  // Started as root, nginx's workers run as nobody: they must reach the temp dirs.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, "tmp"), { mode: 0o777 });
  chmodSync(join(dir, "tmp"), 0o777);
  let child: ChildProcess;
  if (kind === "nginx") {
    const bin = spawnSync("sh", ["-c", "command -v nginx || ls /usr/sbin/nginx"], { encoding: "utf8" })
      .stdout.trim()
      .split("\n")[0];
    if (!bin) throw new Error("nginx is not installed: apt-get install nginx-light (bash .ci/run does)");
    writeFileSync(join(dir, "nginx.conf"), nginxConf(dir, port, upstream));
    child = spawn(
      bin,
      ["-p", `${dir}/`, "-c", join(dir, "nginx.conf"), "-e", "stderr", "-g", "daemon off;"],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
  } else {
    if (spawnSync("caddy", ["version"]).status !== 0)
      throw new Error("caddy is not installed: apt-get install caddy (bash .ci/run does)");
    writeFileSync(join(dir, "Caddyfile"), caddyfile(port, upstream));
    child = spawn("caddy", ["run", "--adapter", "caddyfile", "--config", join(dir, "Caddyfile")], {
      env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
      stdio: ["ignore", "ignore", "pipe"],
    });
  }
  let log = "";
  child.stderr?.on("data", (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null) return done();
      child.once("exit", done);
      child.kill("SIGTERM");
    });
  try {
    await until(
      () =>
        new Promise<boolean>((resolve) => {
          const s = net.connect({ host: "127.0.0.1", port }, () => {
            s.destroy();
            resolve(true);
          });
          s.on("error", () => resolve(false));
        }),
      10_000,
      `${kind} listens`,
    );
  } catch (err) {
    await stop();
    throw new Error(`${kind} did not start: ${(err as Error).message}\n${log}`);
  }
  return { url: `http://127.0.0.1:${port}`, log: () => log, stop };
}
