/**
 * infra/docker without a container engine: each Dockerfile is parsed; a built image copies exactly the tree the
 * shared build stage cuts for it (tools/images deploy: its workspace packages and production dependencies), and
 * its ENTRYPOINT is started with this machine's node from that layout (npm packages linked, workspace packages
 * copied) until it logs that it listens or prints its usage. tools/images/test builds and runs the real images.
 */
import type { ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPONENTS, planLayout, writeLayout } from "@thaw/images";
import { afterAll, describe, expect, it } from "vitest";
import { startNode } from "./k8s/child.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DOCKER = join(ROOT, "infra/docker");

interface Stage {
  workdir: string;
  copies: { from: string | undefined; src: string[]; dest: string }[];
  user: string | undefined;
  entrypoint: string[] | undefined;
  name: string | undefined;
}

/** Dockerfile instructions by stage (continuations joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const args = rest.join(" ");
    const stage = stages.at(-1);
    switch (op?.toUpperCase()) {
      case "FROM":
        stages.push({
          workdir: "/",
          copies: [],
          user: undefined,
          entrypoint: undefined,
          name: /\sAS\s+(\S+)/i.exec(args)?.[1],
        });
        break;
      case "WORKDIR":
        if (stage) stage.workdir = args;
        break;
      case "USER":
        if (stage) stage.user = args;
        break;
      case "ENTRYPOINT":
        if (stage) stage.entrypoint = JSON.parse(args) as string[];
        break;
      case "COPY": {
        const words = args.split(/\s+/);
        const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
        const paths = words.filter((w) => !w.startsWith("--"));
        stage?.copies.push({ from, src: paths.slice(0, -1), dest: paths.at(-1) as string });
        break;
      }
    }
  }
  return stages;
}

/** Writes the runtime stage's /app under `root`: the component's tree as the build stage's deploy step cuts it. */
function layout(name: string, stage: Stage, root: string): void {
  const app = join(root, stage.workdir);
  const component = COMPONENTS.find((c) => c.name === name) as (typeof COMPONENTS)[number];
  for (const c of stage.copies) {
    if (c.from === "build") {
      // The one thing a built image copies: /out/<name>/, which deploy-cli writes for that component.
      expect(c.src).toEqual([`/out/${name}/`]);
      writeLayout(ROOT, planLayout(ROOT, component.workspace), join(app, c.dest), { linkModules: true });
    } else {
      for (const s of c.src) {
        expect(existsSync(join(ROOT, s)), s).toBe(true);
        cpSync(join(ROOT, s), join(app, c.dest.endsWith("/") ? join(c.dest, basename(s)) : c.dest));
      }
    }
  }
}

const temp: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill("SIGKILL");
  for (const t of temp) rmSync(t, { recursive: true, force: true });
});

/** Runs the entrypoint (node = this node) until `want` shows up in its output, or 30 s pass. */
async function runUntil(
  cmd: string[],
  cwd: string,
  env: Record<string, string>,
  want: RegExp,
): Promise<string> {
  const [bin, ...args] = cmd;
  expect(bin).toBe("node");
  // npm packages in the layout are links to the repository's copies: resolve them where they sit.
  const run = startNode(["--preserve-symlinks", ...args], cwd, env);
  children.push(run.child);
  try {
    return await run.waitFor(want);
  } finally {
    run.child.kill("SIGKILL");
  }
}

const work = mkdtempSync(join(tmpdir(), "thaw-docker-"));
temp.push(work);
const config = join(work, "thaw.config.yaml");
writeFileSync(
  config,
  "services:\n  - name: hello\n    hosts: [hello.localhost]\n    webhook: { url: http://127.0.0.1:9/scale }\n",
);

/** How each image is started here: the args and env its manifest would give, with ports on loopback. */
const RUNS: Record<string, { args: string[]; env: Record<string, string>; want: RegExp }> = {
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
      QUEUE_SERVING_PORT: "0",
      QUEUE_SERVING_TLS_PORT: "0",
      USER_PORT: "9",
      REVISION_TIMEOUT_SECONDS: "300",
      THAW_ADMIN_PORT: "0",
      THAW_METRICS_PORT: "0",
      THAW_USER_METRICS_PORT: "0",
      THAW_BIND_HOST: "127.0.0.1",
      THAW_CERTS_DIR: join(work, "no-certs"),
    },
    want: /thaw-queue-proxy listening/,
  },
  activator: { args: ["--host", "127.0.0.1", "--port", "0"], env: {}, want: /"listening"/ },
  "ingress-hook": {
    args: ["--listen", "127.0.0.1:0", "--activator", "http://127.0.0.1:9", "--config", config, "--no-watch"],
    env: {},
    want: /thaw-ingress-hook listening on/,
  },
  autoscaler: {
    args: ["--config", config, "--listen", "127.0.0.1:0"],
    // A webhook service's calls are signed, so the bin refuses to start without the secret.
    env: { THAW_SCALE_WEBHOOK_SECRET: "0123456789abcdef0123456789abcdef", THAW_LEADER_ELECTION: "off" },
    want: /thaw-autoscaler listening/,
  },
  cli: { args: ["validate", config], env: {}, want: /: ok \(1 service/ },
  "example-hello": { args: [], env: { PORT: "0", STARTUP_DELAY_MS: "0" }, want: /hello: \S+ listening on/ },
};

describe("infra/docker: one Dockerfile per component, checked without Docker", () => {
  const files = readdirSync(DOCKER)
    .filter((f) => f.endsWith(".Dockerfile") && f !== "build.Dockerfile")
    .sort();

  it("has an image for every component, and a .dockerignore at the build context (the repo root)", () => {
    expect(files.map((f) => f.replace(".Dockerfile", ""))).toEqual(Object.keys(RUNS).sort());
    expect(COMPONENTS.map((c) => c.name).sort()).toEqual(Object.keys(RUNS).sort());
    const ignore = readFileSync(join(ROOT, ".dockerignore"), "utf8");
    for (const p of ["**/node_modules", "**/dist", ".git"]) expect(ignore).toContain(p);
  });

  it("the shared build stage copies every workspace's package.json before npm ci (else npm ci differs)", () => {
    const build = parseDockerfile(readFileSync(join(DOCKER, "build.Dockerfile"), "utf8"))[0] as Stage;
    const copied = build.copies.flatMap((c) => c.src);
    const ci = copied.indexOf(".");
    const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { workspaces: string[] };
    const workspaces = root.workspaces.flatMap((w) => {
      const dir = w.replace("/*", "");
      return readdirSync(join(ROOT, dir))
        .filter((d) => existsSync(join(ROOT, dir, d, "package.json")))
        .map((d) => `${dir}/${d}/package.json`);
    });
    for (const w of ["package.json", "package-lock.json", ...workspaces]) {
      expect(copied.indexOf(w), `${w} copied before COPY . .`).toBeGreaterThanOrEqual(0);
      expect(copied.indexOf(w)).toBeLessThan(ci);
    }
  });

  for (const file of files) {
    const name = file.replace(".Dockerfile", "");
    it(`${name}: copied paths exist after the build, a numeric non-root user, and the entrypoint starts`, async () => {
      const stages = parseDockerfile(readFileSync(join(DOCKER, file), "utf8"));
      const final = stages.at(-1) as Stage;
      expect(final.user).toMatch(/^[1-9]\d*(:\d+)?$/);
      expect(final.entrypoint?.[0]).toBe("node");
      const entry = final.entrypoint?.at(-1) as string;
      if (entry.includes("dist/")) {
        // The image starts node with the flags the bin's shebang gives it (the queue-proxy's V8 flags).
        const shebang = readFileSync(join(ROOT, entry), "utf8").split("\n")[0] as string;
        const flags = shebang
          .replace(/^#!\/usr\/bin\/env (-S )?node ?/, "")
          .split(" ")
          .filter(Boolean);
        expect(final.entrypoint?.slice(1, -1)).toEqual(flags);
      }
      const root = mkdtempSync(join(tmpdir(), `thaw-image-${name}-`));
      temp.push(root);
      layout(name, final, root);
      const run = RUNS[name] as (typeof RUNS)[string];
      const out = await runUntil(
        [...(final.entrypoint as string[]), ...run.args],
        join(root, final.workdir),
        run.env,
        run.want,
      );
      expect(out).toMatch(run.want);
    });
  }
});
