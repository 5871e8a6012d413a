/**
 * Builds every image: the two bases, the shared build stage (infra/docker/build.Dockerfile), then each
 * component's distroless runtime image, reusing podman's layer cache. Progress goes to `log`; a failure names
 * the image, the step, the end of its build log and a fix.
 */
import { createWriteStream, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type BaseImage, baseInputs, ensureBase } from "./base.js";
import { COMPONENTS, type Component } from "./components.js";
import { npmSecrets } from "./npm-secrets.js";
import { type Podman, runTool, tail } from "./podman.js";

/** The shared build stage's tag (component Dockerfiles default BUILD_IMAGE to it). */
export const BUILD_STAGE = "localhost/thaw/build:local";

/** One built image. */
export interface BuiltImage {
  name: string;
  ref: string;
  seconds: number;
  /** Uncompressed size in bytes, as podman reports it. */
  bytes: number;
}

/** What a build made. */
export interface BuildResult {
  bases: BaseImage[];
  images: BuiltImage[];
}

/** The image tag of a component: its package.json version (`localhost/thaw/<name>:<version>`). */
export function imageRef(root: string, c: Component): string {
  const { version } = JSON.parse(readFileSync(join(root, c.workspace, "package.json"), "utf8")) as {
    version: string;
  };
  return `localhost/thaw/${c.name}:${version}`;
}

/** Known failure signatures in a build log, and what to do about each. */
const HINTS: [RegExp, string][] = [
  [
    /SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT|unable to get local issuer/,
    "npm in the build does not trust this machine's TLS: check npm's cafile (npm config get cafile) names the CA bundle in use",
  ],
  [
    /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT/,
    "the build's npm ci cannot reach the registry: check `npm ping` works on this machine (the build uses the host network)",
  ],
  [
    /setrlimit|rlimit/,
    "the container's ulimits are above what this host allows: see ULIMITS in tools/images/src/podman.ts",
  ],
  [
    /cgroups in hybrid mode|crun/,
    "the OCI runtime must be runc (containers.conf is written by tools/images/src/podman.ts)",
  ],
  [
    /no space left on device/,
    "the image cache is out of disk: free space or remove ~/.cache/thaw/images/storage",
  ],
  [
    /image not known|repository name must|does not resolve to an alias|pull access denied|initializing source/,
    "a base image is missing: run `npm run images` (it builds localhost/thaw/node-* first)",
  ],
];

/** The error for a failed build: which image, which step, the end of the log and a fix. */
export function buildError(image: string, logFile: string, log: string): Error {
  const step = [...log.matchAll(/^(STEP \d+\/\d+: .*)$/gm)].at(-1)?.[1] ?? "(before the first step)";
  const hint = HINTS.find(([re]) => re.test(log))?.[1] ?? `read the whole log: ${logFile}`;
  return new Error(
    `image ${image} failed at ${step}\n--- last lines of ${logFile}\n${tail(log)}\n--- fix: ${hint}`,
  );
}

/** `podman build` of one Dockerfile from the repository root, logged to logs/<name>.log. */
export async function podmanBuild(
  pm: Podman,
  root: string,
  name: string,
  args: string[],
  log: (l: string) => void,
): Promise<void> {
  const logFile = join(pm.dir, "logs", `${name}.log`);
  const out = createWriteStream(logFile);
  const r = await runTool(
    pm,
    "podman",
    ["build", "--signature-policy", pm.policy, "--pull=never", "--layers", "--network=host", ...args, root],
    {
      onLine: (l) => {
        out.write(`${l}\n`);
        if (/^STEP \d+\/\d+: (RUN|COPY \. )/.test(l)) log(`  ${name}: ${l.slice(0, 110)}`);
      },
    },
  );
  await new Promise((resolve) => out.end(resolve));
  if (r.code !== 0) throw buildError(name, logFile, r.log);
}

async function imageBytes(pm: Podman, ref: string): Promise<number> {
  const r = await runTool(pm, "podman", ["image", "inspect", "--format", "{{.Size}}", ref]);
  return Number(r.stdout.trim());
}

/** Builds the bases, the shared build stage and the components named in `only` (default: all). */
export async function buildImages(
  pm: Podman,
  root: string,
  opts: { only?: string[]; log?: (line: string) => void } = {},
): Promise<BuildResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const t0 = Date.now();
  const secs = (t: number) => (Date.now() - t) / 1000;
  const inputs = await baseInputs();
  const bases: BaseImage[] = [];
  for (const kind of ["runtime", "build"] as const) {
    const t = Date.now();
    const b = await ensureBase(pm, kind, inputs);
    bases.push(b);
    log(`images: base ${b.ref} ${b.cached ? "reused" : "built"} in ${secs(t).toFixed(1)} s`);
  }
  const [runtime, build] = bases.map((b) => b.ref) as [string, string];
  const wanted = COMPONENTS.filter((c) => !opts.only || opts.only.includes(c.name));
  const images: BuiltImage[] = [];
  if (wanted.some((c) => c.built)) {
    const t = Date.now();
    const secrets = npmSecrets();
    try {
      await podmanBuild(
        pm,
        root,
        "build",
        [
          "-f",
          join(root, "infra/docker/build.Dockerfile"),
          "--build-arg",
          `NODE_IMAGE=${build}`,
          "--secret",
          `id=npmrc,src=${secrets.npmrc}`,
          "--secret",
          `id=npm_ca,src=${secrets.ca}`,
          "-t",
          BUILD_STAGE,
        ],
        log,
      );
    } finally {
      rmSync(secrets.dir, { recursive: true, force: true });
    }
    log(`images: build stage ${BUILD_STAGE} in ${secs(t).toFixed(1)} s`);
  }
  for (const c of wanted) {
    const t = Date.now();
    const ref = imageRef(root, c);
    await podmanBuild(
      pm,
      root,
      c.name,
      [
        "-f",
        join(root, `infra/docker/${c.name}.Dockerfile`),
        "--build-arg",
        `NODE_IMAGE=${runtime}`,
        "--build-arg",
        `BUILD_IMAGE=${BUILD_STAGE}`,
        "-t",
        ref,
      ],
      log,
    );
    const image = { name: c.name, ref, seconds: secs(t), bytes: await imageBytes(pm, ref) };
    images.push(image);
    log(`images: ${ref} in ${image.seconds.toFixed(1)} s, ${(image.bytes / 1e6).toFixed(1)} MB`);
  }
  // Layers of earlier builds that no tag reaches any more (an old build stage is over 1 GB): the cache keeps
  // only what the current images and their cached steps use.
  await runTool(pm, "podman", ["image", "prune", "--force"]);
  log(`images: all done in ${secs(t0).toFixed(1)} s`);
  return { bases, images };
}
