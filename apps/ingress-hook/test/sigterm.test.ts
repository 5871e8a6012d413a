import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ServerType, serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeActivator } from "./support/fake-activator.js";
import { type HttpAnswer, httpGet, waitForHttp } from "./support/http-get.js";
import { freePort } from "./support/nginx-process.js";

// The real `thaw-ingress-hook` bin (dist/node/cli.js, built by `npm test`) gets SIGTERM while it holds a
// cold request: the request must still get its answer (200 once the revision is ready, or 503 +
// Retry-After at its deadline), new connections are refused, and the process exits 0 after that.
const TIMEOUT_MS = 2500;
const bin = fileURLToPath(new URL("../dist/node/cli.js", import.meta.url));

let activator: FakeActivator;
let activatorServer: ServerType;
let activatorPort = 0;
let dir = "";
const children: ChildProcess[] = [];

beforeAll(async () => {
  activator = new FakeActivator([
    { namespace: "default", name: "hello", startupDelayMs: 1200 },
    { namespace: "default", name: "stuck", startupDelayMs: "never" },
  ]);
  activatorServer = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: activator.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  activatorPort = (activatorServer.address() as AddressInfo).port;
  dir = mkdtempSync(join(tmpdir(), "thaw-hook-sigterm-"));
  writeFileSync(
    join(dir, "thaw.config.yaml"),
    [
      "services:",
      "  - { name: hello, hosts: [hello.localhost], run: { command: [node] } }",
      "  - { name: stuck, hosts: [stuck.localhost], run: { command: [node] } }",
    ].join("\n"),
  );
});

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  activator?.close();
  activatorServer?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the bin on a free port and waits until it answers. */
async function startHook(): Promise<{ child: ChildProcess; port: number; exited: Promise<number | null> }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      bin,
      "--activator",
      `http://127.0.0.1:${activatorPort}`,
      "--listen",
      `127.0.0.1:${port}`,
      "--config",
      join(dir, "thaw.config.yaml"),
      "--timeout-ms",
      String(TIMEOUT_MS),
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  children.push(child);
  const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
  await waitForHttp(port);
  return { child, port, exited };
}

/** A cold request to the hook's Envoy dialect (the host decides the revision). */
function held(port: number, host: string): Promise<HttpAnswer> {
  return httpGet(port, host, "/envoy/app", {}, 20_000);
}

async function refused(port: number): Promise<boolean> {
  try {
    await httpGet(port, "hello.localhost", "/healthz", {}, 2000);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ECONNREFUSED";
  }
}

describe("thaw-ingress-hook on SIGTERM (the real bin)", () => {
  it("finishes a request held across the SIGTERM, refuses new connections, then exits 0", async () => {
    const { child, port, exited } = await startHook();
    const t0 = performance.now();
    const answer = held(port, "hello.localhost");
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    expect(await refused(port)).toBe(true);
    const a = await answer;
    expect(a.status).toBe(200);
    expect(a.headers["x-thaw-revision"]).toBe("default/hello");
    expect(await exited).toBe(0);
    // It waited for the activation (the backend listens after 1.2 s), not for the whole deadline.
    expect(performance.now() - t0).toBeLessThan(TIMEOUT_MS + 5000);
  }, 30_000);

  it("answers a held request whose revision never gets ready with 503 + Retry-After at its deadline", async () => {
    const { child, port, exited } = await startHook();
    const t0 = performance.now();
    const answer = held(port, "stuck.localhost");
    await new Promise((r) => setTimeout(r, 300));
    child.kill("SIGTERM");
    const a = await answer;
    const elapsed = performance.now() - t0;
    expect(a.status).toBe(503);
    expect(Number(a.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(a.body)).toMatchObject({ error: { code: "ERR_ACTIVATION_TIMEOUT" } });
    expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 100);
    expect(await exited).toBe(0);
  }, 30_000);

  it("keeps idle keep-alive connections 65 s unless THAW_HEADERS_TIMEOUT_MS is set (above nginx's 60 s)", async () => {
    const { child, port, exited } = await startHook();
    const res = await fetch(`http://127.0.0.1:${port}/healthz`);
    await res.arrayBuffer();
    expect(res.headers.get("keep-alive")).toBe("timeout=65");
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("exits at once when nothing is held", async () => {
    const { child, exited } = await startHook();
    const t0 = performance.now();
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(performance.now() - t0).toBeLessThan(2000);
  }, 30_000);
});
