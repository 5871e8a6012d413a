/**
 * A new user's view of the packages: every public package is packed, the tarballs alone (plus their
 * third-party dependencies from the registry) are installed into a fresh project under the OS temp dir,
 * and that project type-checks, runs the READMEs' examples, runs the bins and builds a Worker.
 * The tools a user would add as devDependencies (typescript, wrangler, publint, attw) are the workspace's
 * pinned copies, run with the project as their working directory, so nothing resolves from the workspace.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseScaleRequest, verifyScaleWebhook } from "@thaw/protocol";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProject, examplesDir, freshDir, npmInstall, packAll, packages, repoRoot } from "./project.js";
import { run, shown, userEnv } from "./run.js";

const tsc = join(repoRoot, "node_modules/typescript/bin/tsc");
const wrangler = join(repoRoot, "node_modules/wrangler/bin/wrangler.js");
const attw = join(repoRoot, "node_modules/@arethetypeswrong/cli/dist/index.js");
const publint = join(repoRoot, "node_modules/publint/src/cli.js");

/** Runnable examples (a Worker is built by wrangler instead) and the output lines each documents (`// → …`). */
const runnable = readdirSync(examplesDir)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".worker.ts"))
  .sort()
  .map((f) => ({
    file: f,
    expected: [...readFileSync(join(examplesDir, f), "utf8").matchAll(/\/\/ → (.+)$/gm)].map((m) =>
      m[1]!.trim(),
    ),
  }));

let work = "";
let app = "";
let tarballs = new Map<string, string>();

beforeAll(async () => {
  work = await freshDir("thaw-consumer-");
  tarballs = await packAll(join(work, "tarballs"));
  app = join(work, "app");
  await mkdir(app);
  await createProject(app, tarballs);
});

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a fresh project that installs the tarballs", () => {
  it("takes every @thaw package (and thaw) from its tarball, one copy each", () => {
    const lock = JSON.parse(readFileSync(join(app, "package-lock.json"), "utf8")) as {
      packages: Record<string, { resolved?: string; version?: string }>;
    };
    const ours = Object.entries(lock.packages).filter(([k]) =>
      /(^|\/)node_modules\/(@thaw\/[^/]+|thaw)$/.test(k),
    );
    expect(ours.map(([k]) => k).sort()).toEqual(packages.map((p) => `node_modules/${p.name}`).sort());
    for (const [k, v] of ours) expect(v.resolved, k).toMatch(/^file:.*\.tgz$/);
  });

  // skipLibCheck is off so our own .d.ts files are checked too; errors inside third-party declarations
  // (hono's client types without DOM, isomorphic-ws without @types/ws) are theirs and are listed apart.
  // tsc over every package's declarations took more than 2 min at load 14 (and its emit is what the
  // examples below run): waited for up to 10 min, as long as a loaded machine needs.
  const TSC_MS = 600_000;
  it(
    "type-checks under strict NodeNext with Node types (our declarations included)",
    async () => {
      const r = await run(process.execPath, [tsc, "-p", "tsconfig.node.json"], {
        cwd: app,
        timeoutMs: TSC_MS,
      });
      expect(ownErrors(r.stdout), shown(r)).toEqual([]);
      expect(r.stdout).not.toContain("error TS6");
    },
    TSC_MS,
  );

  it(
    "type-checks the portable examples and the Worker with Workers types only",
    async () => {
      const r = await run(process.execPath, [tsc, "-p", "tsconfig.workers.json"], {
        cwd: app,
        timeoutMs: TSC_MS,
      });
      expect(ownErrors(r.stdout), shown(r)).toEqual([]);
    },
    TSC_MS,
  );

  it.each(runnable)("runs examples/$file and prints what its README says", async ({ file, expected }) => {
    const r = await run(process.execPath, [join("dist", file.replace(/\.ts$/, ".js"))], {
      cwd: app,
      timeoutMs: 60_000,
    });
    expect(r.code, shown(r)).toBe(0);
    let at = 0;
    for (const line of expected) {
      const i = r.stdout.indexOf(line, at);
      expect(
        i,
        `${file} should print ${JSON.stringify(line)} (in order)\n${shown(r)}`,
      ).toBeGreaterThanOrEqual(0);
      at = i + line.length;
    }
  });

  it("npx thaw validate: ok for the example config, field paths for a broken one", async () => {
    const ok = await run("npx", ["thaw", "validate", "thaw.config.yaml"], { cwd: app });
    expect(ok.code, shown(ok)).toBe(0);
    expect(ok.stdout).toContain("ok");
    await writeFile(
      join(app, "broken.yaml"),
      "services:\n  - name: hello\n    run: { command: [node, server.mjs] }\n    autoscaling: { target: -1 }\n",
    );
    const bad = await run("npx", ["thaw", "validate", "broken.yaml"], { cwd: app });
    expect(bad.code, shown(bad)).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(
      /services\[0\]\.autoscaling\.target|services\.0\.autoscaling\.target/,
    );
  });

  it("npx thaw-queue-proxy proxies to an app, answers kubelet probes, and stops on SIGTERM", async () => {
    const upstream = await listen(
      createServer((_req, res) => {
        res.end("hello from the app");
      }),
    );
    const env = userEnv({
      ...knativeEnv((upstream.address() as AddressInfo).port),
      THAW_DRAIN_QUIET_PERIOD_MS: "200",
    });
    const qp = spawn("npx", ["thaw-queue-proxy"], {
      cwd: app,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const ports = await listening(qp);
      const base = `http://127.0.0.1:${ports.serving}`;
      const proxied = await fetch(`${base}/`);
      expect(await proxied.text()).toBe("hello from the app");
      const probe = await fetch(`${base}/`, {
        headers: { "user-agent": "kube-probe/1.31", "k-network-probe": "queue" },
      });
      expect([probe.status, await probe.text()]).toEqual([200, "queue"]);
      // npx does not pass SIGTERM on (it dies and leaves its child), so signal the whole group, as a
      // terminal's Ctrl-C or a container runtime would. Its pipes close once every process has exited.
      const closed = new Promise<void>((resolve) => qp.once("close", () => resolve()));
      process.kill(-qp.pid!, "SIGTERM");
      await withTimeout(closed, 20_000, "thaw-queue-proxy did not exit after SIGTERM");
      await expect(fetch(`${base}/`)).rejects.toThrow();
    } finally {
      killGroup(qp.pid!); // whatever happened above, leave no process of the group behind
      upstream.close();
    }
  });

  it("wrangler deploy --dry-run bundles the user's Worker from the tarballs", async () => {
    const r = await run(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", "worker-dist"], {
      cwd: app,
      env: userEnv({ WRANGLER_SEND_METRICS: "false", WRANGLER_HIDE_BANNER: "true" }),
    });
    expect(r.code, shown(r)).toBe(0);
    const bundle = readFileSync(join(app, "worker-dist", "activator.worker.js"), "utf8");
    expect(bundle).toMatch(/export \{[^}]*\bRevisionActivator\b[^}]*\}/);
    expect(r.stdout + r.stderr).toContain("REVISION_ACTIVATOR");
  });

  it("the bundled Worker runs in workerd (Miniflare), sends the signed scale webhook and forwards a request to a pod on Node", async () => {
    const pod = await listen(
      createServer((req, res) => {
        res.end(req.headers["k-network-probe"] === "queue" ? "queue" : `hello from the pod (${req.url})`);
      }),
    );
    // The user's platform, told to scale through the signed thaw.scale/v1 webhook (origin (b) of the
    // activator's README): only a correctly signed, well-formed request counts.
    const secret = "consumer-test-secret-0123";
    const scaled: { name: string; desiredScale: number }[] = [];
    const hook = await listen(
      createServer((req, res) => {
        let text = "";
        req.setEncoding("utf8").on("data", (d: string) => {
          text += d;
        });
        req.on("end", async () => {
          const headers = new Headers();
          for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers.set(k, v);
          const verified = await verifyScaleWebhook(secret, headers, text, Date.now());
          const body = verified.ok ? parseScaleRequest(JSON.parse(text)) : undefined;
          if (!body?.ok) {
            res.writeHead(401).end();
            return;
          }
          scaled.push({ name: body.value.name, desiredScale: body.value.desiredScale });
          res.writeHead(200, { "content-type": "application/json" }).end("{}");
        });
      }),
    );
    const revisions = [
      {
        namespace: "default",
        name: "hello-00001",
        endpoints: [`127.0.0.1:${(pod.address() as AddressInfo).port}`],
      },
    ];
    const mf = new Miniflare({
      modules: true,
      scriptPath: join(app, "worker-dist", "activator.worker.js"),
      modulesRoot: join(app, "worker-dist"), // module names are relative to it (the default is the cwd)
      compatibilityDate: "2026-04-20",
      durableObjects: { REVISION_ACTIVATOR: { className: "RevisionActivator", useSQLite: true } },
      bindings: {
        REVISIONS: JSON.stringify(revisions),
        THAW_ORIGIN_URL: "",
        SCALE_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/scale`,
        SCALE_WEBHOOK_SECRET: secret,
      },
    });
    try {
      const res = await mf.dispatchFetch("http://activator.example/greet", {
        headers: { "knative-serving-namespace": "default", "knative-serving-revision": "hello-00001" },
      });
      expect([res.status, await res.text()]).toEqual([200, "hello from the pod (/greet)"]);
      expect(scaled).toContainEqual({ name: "hello-00001", desiredScale: 1 });
    } finally {
      await mf.dispose();
      pod.close();
      hook.close();
    }
  });
});

describe("@thaw/autoscaler alone (a core package: its one dependency is @thaw/command-line, which has none)", () => {
  it("installs with nothing else; thaw-simulate reads JSON, and names the optional yaml peer for YAML", async () => {
    const dir = join(work, "core-only");
    await mkdir(dir);
    const manifest = {
      name: "core-only",
      private: true,
      dependencies: {
        "@thaw/autoscaler": `file:${tarballs.get("@thaw/autoscaler")}`,
        // Not on the registry yet: its tarball stands in, as every @thaw package's does above.
        "@thaw/command-line": `file:${tarballs.get("@thaw/command-line")}`,
      },
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
    await npmInstall(dir);
    expect(readdirSync(join(dir, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["@thaw"]);
    await writeFile(join(dir, "trace.csv"), "arrival_ms,duration_ms\n0,100\n10,100\n");
    const config = { services: [{ name: "hello", autoscaling: { target: 1 } }] };
    await writeFile(join(dir, "config.json"), JSON.stringify(config));
    await writeFile(join(dir, "config.yaml"), "services:\n  - name: hello\n");
    const json = await run("npx", ["thaw-simulate", "--trace", "trace.csv", "--config", "config.json"], {
      cwd: dir,
    });
    expect(json.code, shown(json)).toBe(0);
    const yaml = await run("npx", ["thaw-simulate", "--trace", "trace.csv", "--config", "config.yaml"], {
      cwd: dir,
    });
    expect(yaml.code, shown(yaml)).toBe(2);
    expect(yaml.stderr).toContain("npm install yaml");
  });
});

describe("@thaw/kubernetes without its optional peer @kubernetes/client-node", () => {
  it("installs no client; the portable root and ./node/testing load, ./node names the missing peer", async () => {
    const dir = join(work, "kubernetes-only");
    await mkdir(dir);
    const ours = ["@thaw/kubernetes", "@thaw/autoscaler", "@thaw/command-line", "@thaw/clock"];
    const manifest = {
      name: "kubernetes-only",
      private: true,
      type: "module",
      dependencies: Object.fromEntries(ours.map((n) => [n, `file:${tarballs.get(n)}`])),
    };
    await writeFile(join(dir, "package.json"), JSON.stringify(manifest));
    await npmInstall(dir);
    expect(readdirSync(join(dir, "node_modules")).filter((n) => !n.startsWith("."))).toEqual(["@thaw"]);
    const script = [
      'const root = await import("@thaw/kubernetes");',
      'const testing = await import("@thaw/kubernetes/node/testing");',
      "console.log(typeof root.podsFromSlices, typeof testing.EmulatedApiServer);",
      'await import("@thaw/kubernetes/node").catch((e) => console.log(e.code, e.message));',
    ].join("\n");
    await writeFile(join(dir, "check.mjs"), script);
    const r = await run(process.execPath, ["check.mjs"], { cwd: dir });
    expect(r.code, shown(r)).toBe(0);
    expect(r.stdout).toContain("function function");
    expect(r.stdout).toMatch(/ERR_MODULE_NOT_FOUND .*'@kubernetes\/client-node'/);
  });
});

describe.each(packages.map((p) => ({ name: p.name })))("$name as published", ({ name }) => {
  it("publint --strict finds nothing", async () => {
    const r = await run(process.execPath, [publint, "run", tarballs.get(name)!, "--strict"], { cwd: work });
    expect(r.code, shown(r)).toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(/Suggestion|Warning|Error/);
  });

  it("are-the-types-wrong (esm-only profile) finds no problem", async () => {
    const r = await run(
      process.execPath,
      [attw, tarballs.get(name)!, "--profile", "esm-only", "--format", "ascii", "--no-color", "--no-emoji"],
      { cwd: work, env: userEnv({ NO_COLOR: "1" }) },
    );
    expect(r.code, shown(r)).toBe(0);
  });
});

/** tsc's errors outside third-party packages: in the examples or in any @thaw package's declarations. */
function ownErrors(tscOutput: string): string[] {
  return tscOutput
    .split("\n")
    .filter((l) => l.includes("error TS"))
    .filter((l) => !l.startsWith("node_modules/") || /^node_modules\/(@thaw\/|thaw\/)/.test(l));
}

/** Knative's queue-proxy environment for a pod whose app listens on `userPort`; every port 0. */
function knativeEnv(userPort: number): Record<string, string> {
  return {
    USER_PORT: String(userPort),
    QUEUE_SERVING_PORT: "0",
    QUEUE_SERVING_TLS_PORT: "0",
    THAW_ADMIN_PORT: "0",
    THAW_METRICS_PORT: "0",
    THAW_USER_METRICS_PORT: "0",
    THAW_BIND_HOST: "127.0.0.1",
    CONTAINER_CONCURRENCY: "0",
    REVISION_TIMEOUT_SECONDS: "30",
    SERVING_LOGGING_CONFIG: "",
    SERVING_LOGGING_LEVEL: "",
    SERVING_NAMESPACE: "default",
    SERVING_CONFIGURATION: "hello",
    SERVING_REVISION: "hello-00001",
    SERVING_POD: "hello-00001-pod",
    SERVING_POD_IP: "127.0.0.1",
  };
}

/** SIGKILL to a process group this test started; a group already gone is fine. */
function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ESRCH") throw e;
  }
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** The ports from the queue-proxy's one `listening` JSON line on stderr. */
function listening(child: ChildProcess): Promise<{ serving: number }> {
  let err = "";
  const found = new Promise<{ serving: number }>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (d: string) => {
      err += d;
      const line = err.split("\n").find((l) => l.includes("thaw-queue-proxy listening"));
      if (line) resolve(JSON.parse(line) as { serving: number });
    });
    child.once("exit", (code) => reject(new Error(`thaw-queue-proxy exited ${code}\n${err}`)));
  });
  return withTimeout(found, 30_000, "thaw-queue-proxy did not report listening");
}

function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
