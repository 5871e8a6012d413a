import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Stack, type StackOptions, startStack } from "../../src/stack.js";
import { loadAndCheck } from "../../src/validate.js";
import { until } from "./up-process.js";

const here = dirname(fileURLToPath(import.meta.url));
/** The echo app (JSON of what it received; websocket echo). */
export const echoApp = join(here, "echo-app.mjs");

/** Starts `thaw up`'s stack in this process on a config written from `yaml` lines (`options` added). */
export async function stackFrom(
  lines: string[],
  options: StackOptions = {},
): Promise<{ stack: Stack; dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "thaw-cli-"));
  const file = join(dir, "thaw.config.yaml");
  writeFileSync(file, lines.join("\n"));
  const loaded = await loadAndCheck(file);
  if (!loaded.ok) throw new Error(loaded.issues.map((i) => `${i.path}: ${i.message}`).join("\n"));
  const stack = await startStack(loaded.config, loaded.services, {
    listen: "127.0.0.1:0",
    baseDir: dir,
    ...options,
  });
  return {
    stack,
    async dispose() {
      await stack.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The echo service's config lines (`extra` goes at the top level). */
export function echoConfig(extra: string[] = [], service: string[] = []): string[] {
  return [
    ...extra,
    "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 30s }",
    "services:",
    ...echoService(["    timeoutSeconds: 30", ...service]),
  ];
}

/** The echo service's entry under `services:` (`service` lines indented as its keys; `env` its app's). */
export function echoService(service: string[] = [], env?: Record<string, string>): string[] {
  return appService("echo", echoApp, service, env);
}

/** The sample app of examples/hello (answers `hello from <pod>`; STARTUP_DELAY_MS, WORK_MS). */
export const helloApp = join(here, "../../../../examples/hello/server.mjs");

/**
 * A service entry under `services:` named `name` (host `<name>.localhost`, readiness on /healthz) running
 * `node <app>`: `service` lines are its keys (indented 4), `env` its app's, `run` more keys of its run (indented 6).
 */
export function appService(
  name: string,
  app: string,
  service: string[] = [],
  env?: Record<string, string>,
  run: string[] = [],
): string[] {
  return [
    `  - name: ${name}`,
    `    hosts: [${name}.localhost]`,
    "    readinessProbe: { httpGet: { path: /healthz } }",
    ...service,
    "    run:",
    `      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(app)}]`,
    ...(env ? [`      env: ${JSON.stringify(env)}`] : []),
    ...run,
  ];
}

/** A reply as the tests read it. */
export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on a fresh connection (Host and other headers as given; fetch cannot set Host). */
export function request(
  base: string,
  opts: { path?: string; method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: opts.path ?? "/",
        method: opts.method ?? "GET",
        headers: opts.headers ?? {},
        agent: false,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/**
 * Waits until a GET of `base` with `headers` (its Host picks the service) is answered 200, 30 s at most:
 * a transport error counts as not yet. Resolves with how long that took.
 */
export function untilAnswered(base: string, headers: Record<string, string>, what: string): Promise<number> {
  return until(
    async () => (await request(base, { headers }).catch(() => ({ status: 0 }))).status === 200,
    30_000,
    what,
  );
}
