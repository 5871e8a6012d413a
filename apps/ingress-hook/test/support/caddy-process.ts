import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { waitForHttp } from "./http-get.js";
import { freePort } from "./nginx-process.js";

/** infra/caddy/Caddyfile, the file the Caddy tests run (with its addresses replaced). */
export const INFRA_CADDYFILE = fileURLToPath(new URL("../../../../infra/caddy/Caddyfile", import.meta.url));

/** The caddy binary (Debian's `caddy`, which .ci/run installs); throws with the fix when it is missing. */
export function requireCaddy(): string {
  const found = spawnSync("caddy", ["version"], { encoding: "utf8" });
  if (found.status !== 0)
    throw new Error("caddy is not installed: apt-get install caddy (bash .ci/run does)");
  return "caddy";
}

/** A user-space Caddy running infra/caddy/Caddyfile. */
export interface CaddyProcess {
  child: ChildProcess;
  port: number;
  log(): string;
  stop(): Promise<void>;
}

/** infra/caddy/Caddyfile on a free loopback port, asking the hook on `hookPort`; resolves once Caddy answers. */
export async function startCaddyForHook(hookPort: number): Promise<CaddyProcess> {
  const bin = requireCaddy();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "thaw-caddy-"));
  const file = readFileSync(INFRA_CADDYFILE, "utf8")
    .split("http://:8082")
    .join(`http://:${port}`)
    .split("127.0.0.1:8090")
    .join(`127.0.0.1:${hookPort}`);
  writeFileSync(join(dir, "Caddyfile"), file);
  // Caddy keeps its state under XDG dirs (HOME by default): a temp dir of its own.
  const child = spawn(bin, ["run", "--adapter", "caddyfile", "--config", join(dir, "Caddyfile")], {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  });
  try {
    await waitForHttp(port);
  } catch (err) {
    child.kill("SIGKILL");
    throw new Error(`caddy did not answer: ${(err as Error).message}\n${log}`);
  }
  return {
    child,
    port,
    log: () => log,
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        child.once("exit", done);
        child.kill("SIGTERM");
      }),
  };
}
