import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { type IncomingHttpHeaders, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseAllDocuments } from "yaml";
import type { ApiTarget } from "../src/api-request.js";
import type { ControlPlane } from "../src/control-plane.js";
import type { KubectlResult } from "../src/kubectl.js";

/** The repository root. */
export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The control plane's admin identity for {@link apiRequest}. */
export const adminOf = (cp: ControlPlane): ApiTarget => ({
  server: cp.server,
  ca: readFileSync(cp.caPath),
  token: cp.token,
});

/** `thaw k8s render` of `config` (default examples/hello/thaw.k8s.yaml) into a fresh temp folder (the CLI's built dist). */
export function renderExample(config = join(ROOT, "examples/hello/thaw.k8s.yaml")): string {
  const out = mkdtempSync(join(tmpdir(), "thaw-real-render-"));
  execFileSync(
    process.execPath,
    [join(ROOT, "apps/cli/dist/main.js"), "k8s", "render", "--config", config, "--out", out],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  return out;
}

/** Every YAML document of a rendered file. */
export function docs(path: string): { kind: string; metadata: { name: string }; [k: string]: unknown }[] {
  return parseAllDocuments(readFileSync(path, "utf8")).map((d) => d.toJSON());
}

/** Throws with kubectl's own output unless it exited 0. */
export function ok(r: KubectlResult, what: string): KubectlResult {
  if (r.code !== 0) throw new Error(`${what} exited ${r.code}:\n${r.stderr}${r.stdout}`);
  return r;
}

/** Polls `check` every 250 ms until it returns a value, at most `timeoutMs`; then throws with `describe()`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  describe: () => Promise<string> | string,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const v = await check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not within ${timeoutMs} ms: ${await describe()}`);
}

/** One GET with headers of our choosing (fetch would send the address's Host): status, headers and body. */
export function getWith(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    })
      .on("error", reject)
      .end();
  });
}
