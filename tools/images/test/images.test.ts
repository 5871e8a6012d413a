/**
 * The real images: built (or reused from the cache) with podman, then each started as a container with no
 * network, a read-only root and no tmpfs, until it logs that it listens. Each image's filesystem is scanned
 * for build secrets and dev-only packages, and its size is held to a budget. Every container is removed.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BuildResult, buildImages } from "../src/build.js";
import { COMPONENTS } from "../src/components.js";
import { npmSecrets } from "../src/npm-secrets.js";
import { type Podman, podman, setupPodman } from "../src/podman.js";
import { removeContainer, runContainer } from "./run.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Size budgets (uncompressed, MB): the ~106 MB distroless node base plus each component's tree. */
const BUDGET_MB: Record<string, number> = {
  "queue-proxy": 150,
  activator: 240,
  autoscaler: 240,
  "ingress-hook": 160,
  cli: 250,
  "example-hello": 115,
};

/** Packages that only development needs: none may be inside an image. */
const DEV_ONLY = [
  "vitest",
  "typescript",
  "wrangler",
  "vite",
  "turbo",
  "@biomejs",
  "miniflare",
  "workerd",
  "esbuild",
];

const work = mkdtempSync(join(tmpdir(), "thaw-images-test-"));
const config = join(work, "thaw.config.yaml");
writeFileSync(
  config,
  "services:\n  - name: hello\n    hosts: [hello.localhost]\n    webhook: { url: http://127.0.0.1:9/scale }\n",
);
const CONFIG_MOUNT = ["-v", `${config}:/config/thaw.config.yaml:ro`];

/** How each image starts with no network: args and env as its manifest would give, ports on loopback. */
const STARTS: Record<string, { args: string[]; env: Record<string, string>; want: RegExp }> = {
  "queue-proxy": {
    args: [],
    env: {
      SERVING_NAMESPACE: "default",
      SERVING_CONFIGURATION: "hello",
      SERVING_REVISION: "hello",
      SERVING_POD: "hello-1",
      SERVING_POD_IP: "127.0.0.1",
      SERVING_LOGGING_CONFIG: "",
      SERVING_LOGGING_LEVEL: "",
      CONTAINER_CONCURRENCY: "0",
      QUEUE_SERVING_PORT: "8012",
      QUEUE_SERVING_TLS_PORT: "0",
      USER_PORT: "8080",
      REVISION_TIMEOUT_SECONDS: "300",
      THAW_ADMIN_PORT: "0",
      THAW_METRICS_PORT: "0",
      THAW_USER_METRICS_PORT: "0",
      THAW_BIND_HOST: "127.0.0.1",
      THAW_CERTS_DIR: "/nonexistent",
    },
    want: /thaw-queue-proxy listening/,
  },
  activator: { args: ["--host", "127.0.0.1", "--port", "8013"], env: {}, want: /"listening"/ },
  "ingress-hook": {
    args: [
      "--listen",
      "127.0.0.1:8014",
      "--activator",
      "http://127.0.0.1:9",
      "--config",
      "/config/thaw.config.yaml",
      "--no-watch",
    ],
    env: {},
    want: /thaw-ingress-hook listening on/,
  },
  autoscaler: {
    args: ["--config", "/config/thaw.config.yaml", "--listen", "127.0.0.1:8015"],
    env: { THAW_SCALE_WEBHOOK_SECRET: "0123456789abcdef0123456789abcdef", THAW_LEADER_ELECTION: "off" },
    want: /thaw-autoscaler listening/,
  },
  cli: { args: ["validate", "/config/thaw.config.yaml"], env: {}, want: /: ok \(1 service/ },
  "example-hello": {
    args: [],
    env: { PORT: "8080", STARTUP_DELAY_MS: "0" },
    want: /hello: \S+ listening on/,
  },
};

let pm: Podman;
let built: BuildResult;
const containers: string[] = [];

beforeAll(async () => {
  pm = setupPodman();
  built = await buildImages(pm, ROOT, { log: (l) => console.log(l) });
});

afterAll(async () => {
  for (const name of containers) await removeContainer(pm, name);
  rmSync(work, { recursive: true, force: true });
});

/** Every file path under `dir` (no symlink followed). */
function* walk(dir: string, rel = ""): Generator<string> {
  for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
    const p = join(rel, e.name);
    if (e.isDirectory()) yield* walk(dir, p);
    else yield p;
  }
}

/** Mounts an image's filesystem read-only for the scan, and unmounts it after. */
async function withImageRoot<T>(ref: string, fn: (root: string) => T): Promise<T> {
  const root = (await podman(pm, ["image", "mount", ref])).trim();
  try {
    return fn(root);
  } finally {
    await podman(pm, ["image", "unmount", ref]);
  }
}

describe("component images built with podman, run with no network", () => {
  for (const c of COMPONENTS) {
    it(`${c.name}: starts as uid 1000 on a read-only root, no build secret or dev package inside, size within budget`, async () => {
      const image = built.images.find((i) => i.name === c.name);
      expect(image, `${c.name} was built`).toBeDefined();
      const ref = image?.ref as string;
      const mb = (image?.bytes ?? 0) / 1e6;
      console.log(`images: ${ref}: ${mb.toFixed(1)} MB (budget ${BUDGET_MB[c.name]} MB)`);
      expect(mb).toBeLessThan(BUDGET_MB[c.name] as number);
      expect((await podman(pm, ["image", "inspect", "--format", "{{.Config.User}}", ref])).trim()).toBe(
        "1000:1000",
      );

      const start = STARTS[c.name] as (typeof STARTS)[string];
      const name = `thaw-images-test-${c.name}-${process.pid}`;
      containers.push(name);
      const run = runContainer(pm, name, [
        "--network",
        "none",
        "--read-only",
        "--read-only-tmpfs=false",
        ...CONFIG_MOUNT,
        ...Object.entries(start.env).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
        ref,
        ...start.args,
      ]);
      try {
        await run.waitFor(start.want);
      } finally {
        await removeContainer(pm, name);
      }

      const uid = runContainer(pm, `${name}-uid`, [
        "--network",
        "none",
        "--entrypoint",
        "node",
        ref,
        "-p",
        "process.getuid()",
      ]);
      containers.push(`${name}-uid`);
      expect(await uid.exited).toBe(0);
      expect(uid.output().trim()).toBe("1000");

      const secrets = npmSecrets();
      const ca = readFileSync(secrets.ca);
      rmSync(secrets.dir, { recursive: true, force: true });
      const caHash = createHash("sha256").update(ca).digest("hex");
      const found = await withImageRoot(ref, (root) => {
        const bad: string[] = [];
        for (const p of walk(root)) {
          const base = p.split("/").at(-1) as string;
          if (/^\.?npmrc$/.test(base) || p.startsWith("run/secrets") || p.startsWith("root/.npm"))
            bad.push(p);
          else if (
            statSync(join(root, p)).size === ca.length &&
            createHash("sha256")
              .update(readFileSync(join(root, p)))
              .digest("hex") === caHash
          )
            bad.push(`${p} (the host CA bundle)`);
          else if (DEV_ONLY.some((d) => p.includes(`node_modules/${d}/package.json`))) bad.push(p);
          else if (c.name === "queue-proxy" && p.includes("node_modules/@kubernetes/")) bad.push(p);
        }
        return bad;
      });
      expect(found).toEqual([]);
    });
  }
});
