import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The Kubernetes release tools/real-cluster/go/go.mod pins (keep both in step). */
export const K8S_VERSION = "v1.37.2";

/** The binaries built, in build order: the control plane first, so a partial cache still starts it. */
export const K8S_BINARIES = [
  "kube-apiserver",
  "kube-controller-manager",
  "kube-scheduler",
  "kubectl",
  "kubelet",
  "kube-proxy",
] as const;

/** One of {@link K8S_BINARIES}. */
export type K8sBinary = (typeof K8S_BINARIES)[number];

/** The Go module that pins the release (tools/real-cluster/go). */
export const GO_MODULE_DIR = fileURLToPath(new URL("../go/", import.meta.url));

/** The command a person runs to build or refresh the cache. */
export const BUILD_COMMAND = "npm run k8s:build";

const [, major, minor] = /^v(\d+)\.(\d+)\./.exec(K8S_VERSION) ?? [];
const versionVars = (pkg: string) =>
  [`gitVersion=${K8S_VERSION}`, `gitMajor=${major}`, `gitMinor=${minor}`].map((v) => `-X ${pkg}.${v}`);

/**
 * `go build` arguments, the same for every binary. Version variables set so version-skew checks (kubectl,
 * kubelet registration) see the release and not v0.0.0; static (CGO off) like Kubernetes' own releases.
 */
export const GO_BUILD_ARGS = [
  "-trimpath",
  "-tags",
  "providerless",
  "-ldflags",
  [
    "-s -w",
    ...versionVars("k8s.io/component-base/version"),
    "-X k8s.io/component-base/version.gitTreeState=clean",
    ...versionVars("k8s.io/client-go/pkg/version"),
  ].join(" "),
];

const goEnv = { ...process.env, CGO_ENABLED: "0" };

let goVersionSeen: string | undefined;

function goVersion(): string {
  if (goVersionSeen) return goVersionSeen;
  const r = spawnSync("go", ["env", "GOVERSION"], { encoding: "utf8", cwd: GO_MODULE_DIR, env: goEnv });
  if (r.error || r.status !== 0) {
    throw new Error(
      "go is not on PATH: install Go 1.26 or newer (go.mod's `go` line in tools/real-cluster/go), then run " +
        BUILD_COMMAND,
    );
  }
  goVersionSeen = r.stdout.trim();
  return goVersionSeen;
}

/** `$XDG_CACHE_HOME/thaw/k8s` (or ~/.cache/thaw/k8s): one folder per version and content hash. */
export function k8sCacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "thaw", "k8s");
}

/** The cache folder for the current go.mod, go.sum, build flags and Go version. */
export function k8sCacheDir(go = goVersion()): string {
  const h = createHash("sha256");
  for (const f of ["go.mod", "go.sum", "tools.go"]) h.update(readFileSync(join(GO_MODULE_DIR, f)));
  h.update(JSON.stringify(GO_BUILD_ARGS)).update(go);
  return join(k8sCacheRoot(), `${K8S_VERSION}-${h.digest("hex").slice(0, 12)}`);
}

/** Absolute path of each binary, when all of them are in the cache; otherwise an error naming the missing one and the fix. */
export function k8sBinaries(names: readonly K8sBinary[] = K8S_BINARIES): Record<K8sBinary, string> {
  const bin = join(k8sCacheDir(), "bin");
  const out = {} as Record<K8sBinary, string>;
  for (const n of names) {
    const p = join(bin, n);
    if (!existsSync(p)) {
      throw new Error(
        `${n} ${K8S_VERSION} is not built (looked for ${p}): run \`${BUILD_COMMAND}\` (cold: about an hour on 2 cores)`,
      );
    }
    out[n] = p;
  }
  return out;
}

/** What {@link buildK8sBinaries} did per binary. */
export interface BuiltBinary {
  name: K8sBinary;
  path: string;
  seconds: number;
  bytes: number;
  reused: boolean;
}

/**
 * Builds every missing binary into the cache (reuses the rest; a second run costs the hash and a stat).
 * Each binary is linked to a temporary name and renamed, so an interrupted build leaves no half file.
 */
export async function buildK8sBinaries(log: (line: string) => void = console.log): Promise<BuiltBinary[]> {
  const dir = join(k8sCacheDir(), "bin");
  mkdirSync(dir, { recursive: true });
  const done: BuiltBinary[] = [];
  for (const name of K8S_BINARIES) {
    const path = join(dir, name);
    if (existsSync(path)) {
      done.push({ name, path, seconds: 0, bytes: statSync(path).size, reused: true });
      continue;
    }
    const t0 = Date.now();
    log(`k8s: building ${name} ${K8S_VERSION} ...`);
    const tick = setInterval(() => log(`k8s: ${name} still building, ${secs(t0)} s`), 60_000);
    try {
      await goBuild(name, `${path}.partial`);
    } finally {
      clearInterval(tick);
    }
    renameSync(`${path}.partial`, path);
    const b = { name, path, seconds: secs(t0), bytes: statSync(path).size, reused: false };
    log(`k8s: ${name} built in ${b.seconds} s (${mb(b.bytes)} MB)`);
    done.push(b);
  }
  writeFileSync(join(dir, "..", "VERSION"), `${K8S_VERSION}\n`);
  return done;
}

function goBuild(name: K8sBinary, out: string): Promise<void> {
  const args = ["build", ...GO_BUILD_ARGS, "-o", out, `k8s.io/kubernetes/cmd/${name}`];
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, { cwd: GO_MODULE_DIR, env: goEnv, stdio: ["ignore", "pipe", "pipe"] });
    let tail = "";
    const keep = (c: Buffer) => {
      tail = (tail + c.toString()).slice(-8000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (e) => reject(new Error(`go build ${name}: ${e.message} (is Go 1.26+ on PATH?)`)));
    child.on("close", (code, signal) => {
      if (code === 0) return resolve();
      rmSync(out, { force: true });
      reject(
        new Error(
          `go build of ${name} failed (${signal ?? `exit ${code}`}). Its last output:\n${tail.trim()}\n` +
            `Rerun in tools/real-cluster/go: go ${args.map((a) => (a.includes(" ") ? `'${a}'` : a)).join(" ")}\n` +
            "A download error needs the Go module proxy (GOPROXY); 'killed' means memory ran out (linking kube-apiserver needs about 1 GB).",
        ),
      );
    });
  });
}

const secs = (t0: number) => Math.round((Date.now() - t0) / 1000);
const mb = (b: number) => (b / 1e6).toFixed(0);
