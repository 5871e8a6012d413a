#!/usr/bin/env node
// `node scripts/edge-dev.mjs`: the edge gateway and activator Workers in one local `wrangler dev` (workerd,
// offline, no account), with this run's values (docs/edge.md):
//
//   node scripts/edge-dev.mjs [--port 8787] [--gateway KEY=VALUE ...] [--activator KEY=VALUE ...]
//
// `wrangler dev -c a -c b` gives `--var` and `--env-file` to the first worker only, so this writes copies of
// apps/ingress-hook/wrangler.jsonc and apps/activator/wrangler.jsonc to a temporary folder, each with its
// values: tokens and secrets (a key with TOKEN, SECRET or PASSWORD) in a `.dev.vars` beside the copy, which
// wrangler reads per config and shows as "(hidden)", the rest in its `vars` (shown in clear). Nothing lands
// in the repository. Then it runs
//   node_modules/.bin/wrangler dev --ip 127.0.0.1 --port <port> -c <gateway copy> -c <activator copy>
// and removes the copies when wrangler exits. SIGINT/SIGTERM are passed to wrangler, which stops workerd.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const USAGE =
  "usage: node scripts/edge-dev.mjs [--port 8787] [--gateway KEY=VALUE ...] [--activator KEY=VALUE ...]";

function fail(msg) {
  process.stderr.write(`edge-dev: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

const vars = { gateway: {}, activator: {} };
let port = "8787";
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--port") {
    port = argv[++i] ?? "";
    if (!/^\d{1,5}$/.test(port)) fail(`--port must be a port number, got ${JSON.stringify(port)}`);
  } else if (a === "--gateway" || a === "--activator") {
    const kv = argv[++i] ?? "";
    const eq = kv.indexOf("=");
    if (eq <= 0) fail(`${a} needs KEY=VALUE, got ${JSON.stringify(kv)}`);
    vars[a.slice(2)][kv.slice(0, eq)] = kv.slice(eq + 1);
  } else fail(`unknown argument ${JSON.stringify(a)}`);
}

/** Values wrangler must not print: they go to `.dev.vars`, never to `vars`. */
const SECRET_KEY = /TOKEN|SECRET|PASSWORD/i;

/** A copy of a shipped config with `extra` merged in: secrets into `.dev.vars`, the rest into its vars. */
function copy(dir, shipped, extra) {
  const c = JSON.parse(readFileSync(shipped, "utf8").replace(/^\s*\/\/.*$/gm, ""));
  c.main = join(dirname(shipped), c.main);
  delete c.$schema;
  const entries = Object.entries(extra);
  c.vars = { ...c.vars, ...Object.fromEntries(entries.filter(([k]) => !SECRET_KEY.test(k))) };
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "wrangler.jsonc");
  writeFileSync(file, JSON.stringify(c, null, 2));
  const secrets = entries.filter(([k]) => SECRET_KEY.test(k)).map(([k, v]) => `${k}=${JSON.stringify(v)}\n`);
  if (secrets.length > 0) writeFileSync(join(dir, ".dev.vars"), secrets.join(""), { mode: 0o600 });
  return file;
}

const dir = mkdtempSync(join(tmpdir(), "thaw-edge-dev-"));
const gateway = copy(join(dir, "gateway"), join(ROOT, "apps/ingress-hook/wrangler.jsonc"), vars.gateway);
const activator = copy(join(dir, "activator"), join(ROOT, "apps/activator/wrangler.jsonc"), vars.activator);
const args = ["dev", "--ip", "127.0.0.1", "--port", port, "-c", gateway, "-c", activator];
args.push("--persist-to", join(dir, "state"), "--show-interactive-dev-session=false");
const wrangler = spawn(join(ROOT, "node_modules/.bin/wrangler"), args, {
  cwd: dir,
  stdio: ["ignore", "inherit", "inherit"],
  env: {
    WRANGLER_SEND_METRICS: "false",
    WRANGLER_HIDE_BANNER: "true",
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    ...process.env,
  },
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => wrangler.kill("SIGTERM"));
wrangler.on("exit", (code, signal) => {
  rmSync(dir, { recursive: true, force: true });
  process.exit(code ?? (signal ? 0 : 1));
});
