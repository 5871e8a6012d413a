// Knative's queue-proxy as the benches' peer (issue 30): KN_QUEUE_BIN when set, else built from its
// published Go module (knative.dev/serving at a fixed release) through the Go module proxy, once per
// release and Go version, into ~/.cache/thaw/kn-queue/. Nothing of Knative is part of this repository.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** The knative.dev/serving release built (Knative 1.20's queue-proxy; its go.mod asks Go 1.24). */
export const KN_SERVING_VERSION = "v0.47.1";
const PACKAGE = "knative.dev/serving/cmd/queue";

/** `$XDG_CACHE_HOME/thaw/kn-queue` (or ~/.cache/thaw/kn-queue), beside the other built tools. */
function cacheRoot() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "thaw", "kn-queue");
}

/**
 * The peer's binary and how it was found, or `reason` saying why there is none. `KN_QUEUE_BIN=off`
 * skips it; an unset KN_QUEUE_BIN builds it (about 2-4 min the first time on 2 cores, then cached).
 * @param {(line: string) => void} log
 * @returns {{ bin: string, reason: string }}
 */
export function knQueueBinary(log) {
  const given = process.env.KN_QUEUE_BIN ?? "";
  if (given === "off") return { bin: "", reason: "KN_QUEUE_BIN=off" };
  if (given !== "") return { bin: given, reason: "" };
  const go = spawnSync("go", ["env", "GOVERSION"], {
    encoding: "utf8",
    env: { ...process.env, HOME: process.env.HOME || homedir() },
  });
  if (go.error || go.status !== 0)
    return { bin: "", reason: "go is not on PATH to build it (Go >= 1.24), and KN_QUEUE_BIN is unset" };
  const dir = join(cacheRoot(), `${KN_SERVING_VERSION}-${go.stdout.trim()}`);
  const bin = join(dir, "queue");
  if (existsSync(bin)) return { bin, reason: "" };
  mkdirSync(cacheRoot(), { recursive: true });
  // Built into a scratch folder and renamed: an interrupted build never leaves half a binary in the cache.
  const scratch = mkdtempSync(join(cacheRoot(), ".build-"));
  const args = ["install", "-trimpath", "-ldflags=-s -w", `${PACKAGE}@${KN_SERVING_VERSION}`];
  log(`kn-queue: building ${PACKAGE}@${KN_SERVING_VERSION} (go ${args.join(" ")}), cached in ${dir}`);
  const t0 = Date.now();
  const r = spawnSync("go", args, {
    encoding: "utf8",
    // HOME by name: turbo passes only the variables it lists, and Go finds its caches from HOME.
    env: { ...process.env, HOME: process.env.HOME || homedir(), GOBIN: scratch, CGO_ENABLED: "0" },
    timeout: 20 * 60_000,
  });
  if (r.status !== 0 || !existsSync(join(scratch, "queue"))) {
    rmSync(scratch, { recursive: true, force: true });
    const tail = `${r.stderr ?? ""}${r.error ?? ""}`.trim().split("\n").slice(-5).join(" | ");
    return { bin: "", reason: `building it failed: ${tail || `exit ${r.status}`}` };
  }
  mkdirSync(dir, { recursive: true });
  renameSync(join(scratch, "queue"), bin);
  rmSync(scratch, { recursive: true, force: true });
  log(`kn-queue: built in ${Math.round((Date.now() - t0) / 1000)} s`);
  return { bin, reason: "" };
}
