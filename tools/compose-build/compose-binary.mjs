// Builds (or reuses) the Docker Compose pinned in go.mod beside this file, cached by the hash of go.mod,
// go.sum and the build flags under ~/.cache/thaw/compose/<hash>/docker-compose. `npm run compose:build`
// runs it; a test imports composeBinary() to get the path or an error naming the build command.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const COMPOSE_MODULE_DIR = fileURLToPath(new URL("./", import.meta.url));
export const COMPOSE_BUILD_COMMAND = "npm run compose:build";
const PACKAGE = "github.com/docker/compose/v5/cmd";
// The version Compose prints (`docker compose version`), kept equal to the one go.mod pins.
const VERSION = "v5.6.0";
const BUILD_ARGS = [
  "build",
  "-trimpath",
  `-ldflags=-s -w -X github.com/docker/compose/v5/internal.Version=${VERSION}`,
];

/** Where the binary for the current go.mod, go.sum and flags is (or will be). */
export function composePath() {
  const h = createHash("sha256");
  for (const f of ["go.mod", "go.sum"]) h.update(readFileSync(join(COMPOSE_MODULE_DIR, f)));
  h.update(JSON.stringify(BUILD_ARGS));
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(cache, "thaw", "compose", h.digest("hex").slice(0, 12), "docker-compose");
}

/** The cached binary, or an error naming the build command. */
export function composeBinary() {
  const p = composePath();
  if (!existsSync(p))
    throw new Error(`Docker Compose is not built (looked for ${p}): run \`${COMPOSE_BUILD_COMMAND}\``);
  return p;
}

/** Builds into the cache unless it is there; written under a temporary name, so never half a file. */
export async function buildCompose(log = console.log) {
  const out = composePath();
  if (existsSync(out)) return out;
  mkdirSync(join(out, ".."), { recursive: true });
  const t0 = Date.now();
  log(`compose: building ${PACKAGE} ...`);
  const args = [...BUILD_ARGS, "-o", `${out}.partial`, PACKAGE];
  await new Promise((resolve, reject) => {
    const child = spawn("go", args, {
      cwd: COMPOSE_MODULE_DIR,
      env: { ...process.env, CGO_ENABLED: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tail = "";
    const keep = (c) => {
      tail = (tail + c.toString()).slice(-8000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (e) => reject(new Error(`go build of Compose: ${e.message} (is Go 1.26+ on PATH?)`)));
    child.on("close", (code) => {
      if (code === 0) return resolve();
      rmSync(`${out}.partial`, { force: true });
      reject(
        new Error(
          `go build of Compose failed (exit ${code}):\n${tail.trim()}\nRerun in ${COMPOSE_MODULE_DIR}: go ${args.join(" ")}`,
        ),
      );
    });
  });
  renameSync(`${out}.partial`, out);
  log(`compose: built in ${Math.round((Date.now() - t0) / 1000)} s: ${out}`);
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { readCommandLine } = await import("@thaw/command-line/node");
  readCommandLine(
    {
      name: "npm run compose:build --",
      summary:
        "builds Docker Compose from its pinned Go module (tools/compose-build/go.mod), for `thaw containers` tests against a real podman, or reuses it",
      flags: [],
      env: [{ name: "XDG_CACHE_HOME", default: "~/.cache", help: "where it is kept, under thaw/compose" }],
    },
    process.argv.slice(2),
    import.meta.url,
  );
  try {
    console.log(`compose: ready at ${await buildCompose()}`);
  } catch (e) {
    console.error(`compose: ${e.message}`);
    process.exitCode = 1;
  }
}
