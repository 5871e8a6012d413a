import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFrontProxy } from "./support/front-proxy.js";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { request, stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const IMAGE = "localhost/thaw-test/httpd:1";

/** Config lines that serve the engine's labelled containers only (no `services:`). */
function discover(socket: string): string[] {
  return [
    "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 1s }",
    "drain: { quietPeriod: 100ms }",
    `containers: { socket: ${socket} }`,
  ];
}

/** `podman create` arguments for busybox httpd on `port` (host network) with `labels`; `extra` before the image. */
function labelled(
  name: string,
  port: number,
  labels: Record<string, string>,
  extra: string[] = [],
  command: string[] = [],
): string[] {
  return [
    "create",
    "--name",
    name,
    "--network",
    "host",
    "-e",
    `PORT=${port}`,
    ...Object.entries(labels).flatMap(([k, v]) => ["--label", `${k}=${v}`]),
    ...extra,
    IMAGE,
    ...command,
  ];
}

describe("containers found by their labels, and their health checks (real podman API service)", () => {
  let engine: PodmanEngine;
  beforeAll(async () => {
    engine = await startPodman();
    // Healthy only 1.5 s after it listens: /state answers 404 until then, "ready" after.
    await engine.podman(
      labelled(
        "lab1",
        18961,
        {
          "thaw.enable": "true",
          "thaw.service": "lab",
          "thaw.hosts": "lab.localhost",
          "thaw.port": "18961",
          "thaw.concurrency": "2",
          "autoscaling.knative.dev/max-scale": "2",
        },
        ["--health-cmd", "test -f /www/state", "--health-interval", "1h", "--entrypoint", "/bin/sh"],
        [
          "-c",
          "trap 'exit 0' TERM; rm -f /www/state; /bin/busybox httpd -f -p 127.0.0.1:$PORT -h /www & sleep 1.5; echo ready > /www/state; wait",
        ],
      ),
    );
    // Not labelled thaw.enable=true: never served, never touched.
    await engine.podman(labelled("plain", 18962, { "thaw.hosts": "plain.localhost", "thaw.port": "18962" }));
  }, 120_000);
  afterAll(async () => {
    await engine?.stop();
  }, 60_000);

  it("a container labelled thaw.enable=true is served without a services entry, and only once healthy", async () => {
    const { stack, dispose } = await stackFrom(discover(engine.socket));
    // The reverse proxy of docs/containers.md: a stock Caddy, `reverse_proxy` to thaw up.
    const caddy = await startFrontProxy("caddy", Number(new URL(stack.url).port));
    try {
      const revs = stack.service.revisions().map((r) => r.name);
      expect(revs).toEqual(["lab"]);
      const r = await request(caddy.url, { path: "/state", headers: { host: "lab.localhost" } });
      // Without the health check the first request reaches httpd as soon as it listens: 404.
      expect(r.status).toBe(200);
      expect(r.body.trim()).toBe("ready");
      expect((await request(stack.url, { headers: { host: "plain.localhost" } })).status).toBe(404);
      await until(
        async () =>
          (await engine.podman(["inspect", "--format", "{{.State.Status}}", "lab1"])).trim() !== "running",
        60_000,
        "lab1 stopped after idle",
      );
      expect((await engine.podman(["inspect", "--format", "{{.State.Status}}", "plain"])).trim()).toBe(
        "created",
      );
    } finally {
      await caddy.stop();
      await dispose();
    }
  }, 120_000);

  it("bad labels are refused naming the container, the label and the fix", async () => {
    await engine.podman(
      labelled("bad1", 18963, {
        "thaw.enable": "true",
        "thaw.hosts": "bad.localhost",
        "thaw.port": "18963",
        "thaw.concurrency": "lots",
        "thaw.host": "typo.localhost",
      }),
    );
    // A typo in thaw.enable would leave it unserved without a word; no hosts and a bad annotation value.
    await engine.podman(labelled("bad2", 18964, { "thaw.enable": "yes", "thaw.hosts": "bad2.localhost" }));
    await engine.podman(
      labelled("bad3", 18965, { "thaw.enable": "true", "autoscaling.knative.dev/max-scale": "many" }),
    );
    // Compose's second replica of a service (`--scale web=2`): Thaw makes replicas itself from the first.
    const compose = (n: number) => ({
      "thaw.enable": "true",
      "thaw.hosts": "app.localhost",
      "thaw.port": "18966",
      "com.docker.compose.project": "app",
      "com.docker.compose.service": "web",
      "com.docker.compose.container-number": String(n),
    });
    await engine.podman(labelled("app-web-1", 18966, compose(1)));
    await engine.podman(labelled("app-web-2", 18966, compose(2)));
    try {
      const err = await stackFrom(discover(engine.socket)).then(
        () => "started",
        (e: Error) => e.message,
      );
      expect(err).toMatch(/container bad1, label thaw\.concurrency: must be a number.*fix the label/);
      expect(err).toMatch(
        /container bad1, label thaw\.host: unknown label; Thaw reads thaw\.enable, thaw\.service/,
      );
      expect(err).toMatch(
        /container bad2, label thaw\.enable: must be "true" \(serve it\) or "false", not "yes"/,
      );
      expect(err).toMatch(
        /container bad3, label thaw\.hosts: is required.*e\.g\. thaw\.hosts=web\.localhost/,
      );
      expect(err).toMatch(/container bad3, label autoscaling\.knative\.dev\/max-scale: .*fix the label/);
      expect(err).toMatch(
        /container app-web-2, label com\.docker\.compose\.container-number: replica 2 Compose made of service web .*--scale web=1/,
      );
      // Replica 1 is the service (named after the Compose service): nothing is said about it.
      expect(err).not.toMatch(/container app-web-1/);
    } finally {
      await engine.podman(["rm", "-f", "bad1", "bad2", "bad3", "app-web-1", "app-web-2"]);
    }
  }, 60_000);

  it("a missing engine socket is refused naming containers.socket and how to start the engine", async () => {
    await expect(stackFrom(discover(`${engine.dir}/none.sock`))).rejects.toThrow(
      /containers\.socket: .*no container engine socket .*podman system service/,
    );
  }, 30_000);
});
