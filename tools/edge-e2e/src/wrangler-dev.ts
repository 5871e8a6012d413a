import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is tools/edge-e2e/src/). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const GATEWAY_CONFIG = join(ROOT, "apps/ingress-hook/wrangler.jsonc");
export const ACTIVATOR_CONFIG = join(ROOT, "apps/activator/wrangler.jsonc");

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a ? ok(a.port) : fail(new Error("no port"))));
    });
  });
}

/** The shipped config as an object (line comments dropped: the files keep comments on lines of their own). */
export function readShippedConfig(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8").replace(/^\s*\/\/.*$/gm, "")) as Record<string, unknown>;
}

/**
 * A copy of a shipped config with some vars replaced. `wrangler dev -c a -c b` applies `--var`,
 * `--env-file` and `.dev.vars` to the first worker only, so the second worker's local values must sit in
 * its config's `vars`; a temporary copy keeps the run's ports and tokens out of the repository.
 */
function writeConfig(dir: string, shipped: string, vars: Record<string, string>): string {
  const c = readShippedConfig(shipped);
  c.main = join(dirname(shipped), c.main as string);
  delete c.$schema;
  c.vars = { ...(c.vars as Record<string, string>), ...vars };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "wrangler.jsonc");
  writeFileSync(file, JSON.stringify(c, null, 2));
  return file;
}

/** A running `wrangler dev` with both Workers. */
export interface WranglerDev {
  url: string;
  /** Everything wrangler printed (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node_modules/.bin/wrangler dev --ip 127.0.0.1 --port <free> -c <gateway> -c <activator>` (local
 * workerd, no account, offline) and waits until the gateway answers. SIGTERM to wrangler's own pid stops its
 * workerd children too (toolchain G10).
 */
export async function startWranglerDev(opts: {
  gatewayVars: Record<string, string>;
  activatorVars: Record<string, string>;
  readyTimeoutMs?: number;
}): Promise<WranglerDev> {
  const dir = mkdtempSync(join(tmpdir(), "thaw-edge-"));
  const gateway = writeConfig(join(dir, "gateway"), GATEWAY_CONFIG, opts.gatewayVars);
  const activator = writeConfig(join(dir, "activator"), ACTIVATOR_CONFIG, opts.activatorVars);
  const port = await freePort();
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "-c", gateway, "-c", activator];
  args.push("--persist-to", join(dir, "state"), "--show-interactive-dev-session=false");
  const env = {
    ...process.env,
    CI: "true",
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    NO_COLOR: "1",
  };
  const child: ChildProcess = spawn(join(ROOT, "node_modules/.bin/wrangler"), args, {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on("data", (b: Buffer) => {
    out += b.toString();
  });
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    const t = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 45_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (out.includes("Ready on")) {
      const ok = await fetch(`${url}/_thaw/edge`).then(
        (r) => r.status > 0,
        () => false,
      );
      if (ok) return { url, log: () => out, stop };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`wrangler dev did not get ready:\n${out}`);
}
