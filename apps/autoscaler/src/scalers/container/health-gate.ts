import type { EngineClient } from "./engine-api.js";
import { replicaName } from "./replica.js";

/** The command of a Docker health check (`HEALTHCHECK`, Compose's `healthcheck.test`), or none. */
export function healthCommand(check: unknown): string[] | undefined {
  const test = (check as { Test?: unknown } | null | undefined)?.Test;
  if (!Array.isArray(test) || test.length < 2 || !test.every((t) => typeof t === "string")) return undefined;
  const [kind, ...rest] = test as string[];
  if (kind === "CMD") return rest;
  if (kind === "CMD-SHELL") return ["/bin/sh", "-c", rest.join(" ")];
  return undefined;
}

/** Least time between two runs of the check for one replica, while it starts. */
const RUN_EVERY_MS = 200;

/**
 * The readiness gate of a container with a health check, the way kubelet runs an exec readiness probe:
 * replica `n` passes once its container is running and healthy, by the engine's own checks
 * (`State.Health`) or, sooner, by running the check's command in it through the exec API (Docker runs its
 * checks every `interval`, 30 s by default; Podman without systemd never runs them).
 */
export function healthGate(engine: EngineClient, first: string): (n: number) => Promise<boolean> {
  const lastRun = new Map<number, number>();
  return async (n) => {
    const c = await engine.inspect(n === 1 ? first : replicaName(first, n));
    if (!c?.State.Running) return false;
    const cmd = healthCommand(c.Config.Healthcheck);
    if (!cmd || c.State.Health?.Status === "healthy") return true;
    const now = performance.now();
    if (now - (lastRun.get(n) ?? Number.NEGATIVE_INFINITY) < RUN_EVERY_MS) return false;
    lastRun.set(n, now);
    try {
      return (await engine.exec(c.Id, cmd)) === 0;
    } catch {
      // The container stopped under the check: not ready, and its pod learns why from its attach process.
      return false;
    }
  };
}
