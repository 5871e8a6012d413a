/**
 * A container service behind the ingress hook in a real nginx (infra/nginx/nginx.conf) and a real Caddy
 * (infra/caddy/Caddyfile), both asking `thaw up`'s forward-auth: a cold request wakes the container through
 * the activator; warm ones go from the proxy straight to the replica's address, which the activator's own
 * request counter proves (it stays flat while they are served).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCaddyForHook } from "../../ingress-hook/test/support/caddy-process.js";
import { httpGet } from "../../ingress-hook/test/support/http-get.js";
import { HOOK_TOKEN, startNginxForHook } from "../../ingress-hook/test/support/nginx-process.js";
import type { Stack } from "../src/stack.js";
import { type PodmanEngine, startPodman } from "./support/podman-engine.js";
import { stackFrom } from "./support/stack-harness.js";
import { until } from "./support/up-process.js";

const HOST = "web.localhost";
const rev = { namespace: "default", name: "web" };

/** Requests the activator took for the service so far (its Prometheus counter). */
function activatorRequests(stack: Stack): number {
  const m = /^thaw_activator_requests_total\{[^}]*revision="web"[^}]*\} (\d+)$/m.exec(stack.metrics.render());
  return Number(m?.[1] ?? 0);
}

describe("a container behind nginx + hook and Caddy + hook: warm requests skip the activator", () => {
  let engine: PodmanEngine;
  let stack: Stack;
  let dispose: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    engine = await startPodman();
    const image = "localhost/thaw-test/httpd:1";
    await engine.podman(["create", "--name", "front1", "--network", "host", "-e", "PORT=18951", image]);
    ({ stack, dispose } = await stackFrom([
      // The token the infra configs send (nginx's Authorization line, Caddy's ?token=).
      `token: ${HOOK_TOKEN}`,
      "autoscaler: { stable-window: 6s, scale-to-zero-grace-period: 1s }",
      "drain: { quietPeriod: 100ms }",
      "services:",
      "  - name: web",
      `    hosts: [${HOST}]`,
      // Burst capacity 0: the revision leaves proxy mode as soon as a replica is ready.
      "    autoscaling: { target-burst-capacity: 0 }",
      `    container: { name: front1, port: 18951, socket: ${engine.socket} }`,
    ]));
  }, 120_000);
  afterAll(async () => {
    await dispose?.();
    await engine?.stop();
  }, 60_000);

  it.each(["nginx", "caddy"] as const)(
    "%s: cold through thaw up's activator address, warm straight to the container",
    async (kind) => {
      const port = Number(new URL(stack.url).port);
      // Each proxy starts from zero: the previous one's replica is stopped once idle.
      await until(() => stack.scaler.pods(rev).length === 0, 60_000, "scaled to zero");
      const proxy =
        kind === "nginx"
          ? await startNginxForHook(port, port).then((p) => ({
              port: p.port,
              log: p.nginx.log,
              stop: p.nginx.stop,
            }))
          : await startCaddyForHook(port);
      // What thaw up carried (its activator, or its gateway to the replica) and what its activator took.
      const counts = () => ({ carried: stack.carried, activator: activatorRequests(stack) });
      try {
        const before = counts();
        const cold = await httpGet(proxy.port, HOST, "/", {}, 30_000);
        expect(cold.status).toBe(200);
        expect(cold.body).toContain("hello from a container");
        const afterCold = counts();
        // Held by the hook while the container started, then handed to thaw up's activator address.
        expect(afterCold.carried).toBe(before.carried + 1);
        await until(
          () => stack.service.revisions().find((r) => r.name === "web")?.mode === "serve",
          20_000,
          "serve mode",
        );
        const warm = await Promise.all(Array.from({ length: 20 }, () => httpGet(proxy.port, HOST, "/")));
        expect(warm.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
        expect(warm.every((r) => r.body.includes("hello from a container"))).toBe(true);
        const afterWarm = counts();
        console.log(
          `THAW-FIGURES containers ${kind} + hook: thaw up carried cold ${afterCold.carried - before.carried}, ` +
            `20 warm ${afterWarm.carried - afterCold.carried}; its activator took ` +
            `${afterCold.activator - before.activator} and ${afterWarm.activator - afterCold.activator}`,
        );
        expect(afterWarm).toEqual(afterCold);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n${kind} said: ${proxy.log()}`);
      } finally {
        await proxy.stop();
      }
    },
    120_000,
  );
});
