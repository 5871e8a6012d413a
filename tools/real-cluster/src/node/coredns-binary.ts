import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { k8sCacheRoot } from "../k8s-binaries.js";

/** The Go module that pins CoreDNS and picks its plugins (tools/real-cluster/coredns). */
export const COREDNS_MODULE_DIR = fileURLToPath(new URL("../../coredns/", import.meta.url));

/** The command a person runs to build it. */
export const COREDNS_BUILD_COMMAND = "npm run coredns:build";

const BUILD_ARGS = ["build", "-trimpath", "-ldflags=-s -w"];

/** `~/.cache/thaw/coredns/<hash of go.mod, go.sum, main.go, flags>/coredns`, beside the Kubernetes binaries. */
export function corednsPath(): string {
  const h = createHash("sha256");
  for (const f of ["go.mod", "go.sum", "main.go"]) h.update(readFileSync(join(COREDNS_MODULE_DIR, f)));
  h.update(JSON.stringify(BUILD_ARGS));
  return join(k8sCacheRoot(), "..", "coredns", h.digest("hex").slice(0, 12), "coredns");
}

/** The cached CoreDNS binary, or an error naming the build command. */
export function corednsBinary(): string {
  const p = corednsPath();
  if (!existsSync(p)) {
    throw new Error(
      `CoreDNS is not built (looked for ${p}): run \`${COREDNS_BUILD_COMMAND}\` (about 4 min on 2 cores)`,
    );
  }
  return p;
}

/** Builds CoreDNS into the cache unless it is there; linked under a temporary name, so never half a file. */
export async function buildCoredns(log: (line: string) => void = console.log): Promise<string> {
  const out = corednsPath();
  if (existsSync(out)) return out;
  mkdirSync(join(out, ".."), { recursive: true });
  const t0 = Date.now();
  log("coredns: building (kubernetes, cache, health, ready plugins) ...");
  const args = [...BUILD_ARGS, "-o", `${out}.partial`, "."];
  await new Promise<void>((resolve, reject) => {
    const child = spawn("go", args, {
      cwd: COREDNS_MODULE_DIR,
      env: { ...process.env, CGO_ENABLED: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let tail = "";
    const keep = (c: Buffer) => {
      tail = (tail + c.toString()).slice(-8000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (e) => reject(new Error(`go build of CoreDNS: ${e.message} (is Go 1.26+ on PATH?)`)));
    child.on("close", (code) => {
      if (code === 0) return resolve();
      rmSync(`${out}.partial`, { force: true });
      reject(
        new Error(
          `go build of CoreDNS failed (exit ${code}):\n${tail.trim()}\nRerun in ${COREDNS_MODULE_DIR}: go ${args.join(" ")}`,
        ),
      );
    });
  });
  renameSync(`${out}.partial`, out);
  log(`coredns: built in ${Math.round((Date.now() - t0) / 1000)} s: ${out}`);
  return out;
}
