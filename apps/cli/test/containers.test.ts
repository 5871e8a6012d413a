import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { request, stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

/** A `container:` service on the test engine's socket. */
function config(name: string, port: number, socket: string): string[] {
  return [
    "autoscaler:",
    "  stable-window: 6s",
    "  scale-to-zero-grace-period: 1s",
    "drain: { quietPeriod: 100ms }",
    "services:",
    "  - name: web",
    "    hosts: [web.localhost]",
    `    container: { name: ${name}, port: ${port}, socket: ${socket} }`,
  ];
}

async function state(engine: PodmanEngine, name: string): Promise<string> {
  return (await engine.podman(["inspect", "--format", "{{.State.Status}}", name])).trim();
}

describe("thaw up with a container: backend (real podman API service)", () => {
  let engine: PodmanEngine;
  beforeAll(async () => {
    engine = await startPodman();
    // Host networking: the test touches no network but loopback (see docs/containers.md).
    await engine.podman([
      "create",
      "--name",
      "web1",
      "--network",
      "host",
      "-e",
      "PORT=18931",
      "localhost/thaw-test/httpd:1",
    ]);
    await engine.podman([
      "create",
      "--name",
      "other",
      "--network",
      "host",
      "-e",
      "PORT=18932",
      "localhost/thaw-test/httpd:1",
    ]);
  }, 120_000);
  afterAll(async () => {
    await engine?.stop();
  }, 60_000);

  it("a cold request starts the stopped container and gets 200; idle, it is stopped; others untouched", async () => {
    const { stack, dispose } = await stackFrom(config("web1", 18931, engine.socket));
    try {
      expect(await state(engine, "web1")).not.toBe("running");
      const t0 = performance.now();
      const r = await request(stack.url, { headers: { host: "web.localhost" } });
      const ms = performance.now() - t0;
      expect(r.status).toBe(200);
      expect(r.body).toContain("hello from a container");
      expect(await state(engine, "web1")).toBe("running");
      console.log(
        `THAW-FIGURES containers cold request (podman start + queue-proxy ready + answer) ${ms.toFixed(0)} ms`,
      );
      await until(async () => (await state(engine, "web1")) !== "running", 60_000, "web1 stopped after idle");
      expect(await state(engine, "other")).toBe("created");
    } finally {
      await dispose();
    }
  }, 120_000);

  it("restarted with the container running, thaw up adopts it (no second start) and answers", async () => {
    await engine.podman(["start", "web1"]);
    const { stack, dispose } = await stackFrom(config("web1", 18931, engine.socket));
    try {
      expect(stack.scaler.pods({ namespace: "default", name: "web" }).length).toBe(1);
      const r = await request(stack.url, { headers: { host: "web.localhost" } });
      expect(r.status).toBe(200);
      const ps = await engine.podman(["ps", "-a", "--format", "{{.Names}}"]);
      expect(ps.trim().split("\n").sort()).toEqual(["other", "web1"]);
    } finally {
      await dispose();
    }
    expect(await state(engine, "web1")).not.toBe("running");
  }, 120_000);

  it("a container killed by someone else is noticed: its pod is replaced and requests succeed again", async () => {
    const { stack, dispose } = await stackFrom(config("web1", 18931, engine.socket));
    const rev = { namespace: "default", name: "web" };
    try {
      expect((await request(stack.url, { headers: { host: "web.localhost" } })).status).toBe(200);
      const before = stack.scaler.pods(rev)[0]?.name;
      await engine.podman(["kill", "web1"]);
      await until(
        () => stack.scaler.pods(rev).some((p) => p.ready && p.name !== before),
        30_000,
        "a new pod",
      );
      expect((await request(stack.url, { headers: { host: "web.localhost" } })).status).toBe(200);
      expect(await state(engine, "web1")).toBe("running");
    } finally {
      await dispose();
    }
  }, 120_000);

  it("a missing container and a missing socket are refused with the field and the fix", async () => {
    await expect(stackFrom(config("nope", 18931, engine.socket))).rejects.toThrow(
      /services\[0\]\.container\.name: no container named nope .*create it first/,
    );
    await expect(stackFrom(config("web1", 18931, `${engine.dir}/none.sock`))).rejects.toThrow(
      /services\[0\]\.container\.socket: .*no container engine socket .*podman system service/,
    );
  }, 60_000);
});
