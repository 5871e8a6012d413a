import { fileURLToPath } from "node:url";
import { ATTACH_ENV } from "./attach-main-env.js";
import { type ContainerInspect, EngineClient } from "./engine-api.js";
import { healthCommand, healthGate } from "./health-gate.js";
import { appHostPort, isOurReplica, replicaName } from "./replica.js";
import { resolveSocket } from "./socket.js";

/** A `container:` service checked against its engine: what its pods run and where their apps answer. */
export interface ContainerTarget {
  socket: string;
  name: string;
  /**
   * Replicas 1..running already run at start-up (the container, then Thaw's copies of it): they are
   * adopted as the revision's first pods, not started again.
   */
  running: number;
  /** The host port replica `n`'s app answers on when it is fixed (the container's, an adopted copy's). */
  userPortOf(n: number): number | undefined;
  /** The container's health check as a readiness gate, when it has one (health-gate.ts). */
  readinessGate?: (replica: number) => Promise<boolean>;
  /** Env name that tells the attach process its replica number. */
  replicaEnv: string;
  /** argv and env of the pod's "app": the attach process (attach-main.ts). */
  command: string[];
  env: Record<string, string>;
}

/**
 * Resolves a `container:` service: finds the engine socket, asks the engine for the container (and Thaw's
 * running copies of it), and reads the host port its `port` answers on. Every failure is one message naming
 * the field and the fix.
 */
export async function containerTarget(
  c: { name: string; port: number; socket?: string },
  env: Readonly<Record<string, string | undefined>>,
  at: string,
): Promise<{ ok: true; value: ContainerTarget } | { ok: false; message: string }> {
  const socket = await resolveSocket(c.socket, env);
  if (!socket.ok) return { ok: false, message: `${at}.socket: ${socket.message}` };
  const engine = new EngineClient(socket.path);
  try {
    await engine.ping();
  } catch (e) {
    return {
      ok: false,
      message: `${at}.socket: the engine at ${socket.path} does not answer (${(e as Error).message}): start it, e.g. podman system service --time=0 unix://${socket.path}`,
    };
  }
  const found = await engine.inspect(c.name);
  if (!found) {
    return {
      ok: false,
      message: `${at}.name: no container named ${c.name} on ${socket.path}: create it first, e.g. podman create --name ${c.name} --network host IMAGE, or docker compose create`,
    };
  }
  const userPort = appHostPort(found, c.port);
  if (userPort === undefined) {
    return {
      ok: false,
      message: `${at}.port: container ${c.name} does not publish port ${c.port}: create it with --network host (the app on ${c.port}) or -p 127.0.0.1:HOSTPORT:${c.port}`,
    };
  }
  const adopted = found.State.Running ? await runningCopies(engine, c.name, c.port) : [];
  // Each adopted copy's port is used once, by the pod that adopts it; a later pod of that number picks anew.
  const ports = new Map(adopted.map((port, i) => [i + 2, port]));
  return {
    ok: true,
    value: {
      socket: socket.path,
      name: c.name,
      running: found.State.Running ? 1 + adopted.length : 0,
      userPortOf: (n) => {
        if (n === 1) return userPort;
        const p = ports.get(n);
        ports.delete(n);
        return p;
      },
      ...(healthCommand(found.Config.Healthcheck) ? { readinessGate: healthGate(engine, c.name) } : {}),
      replicaEnv: ATTACH_ENV.replica,
      command: [process.execPath, fileURLToPath(new URL("./attach-main.js", import.meta.url))],
      env: { [ATTACH_ENV.socket]: socket.path, [ATTACH_ENV.name]: c.name, [ATTACH_ENV.port]: String(c.port) },
    },
  };
}

/** Host ports of Thaw's running copies 2, 3, ... of `name`, up to the first one missing or stopped. */
async function runningCopies(engine: EngineClient, name: string, port: number): Promise<number[]> {
  const out: number[] = [];
  for (let n = 2; n < 1000; n++) {
    const c: ContainerInspect | undefined = await engine.inspect(replicaName(name, n));
    const p = c && isOurReplica(c, name, n) && c.State.Running ? appHostPort(c, port) : undefined;
    if (p === undefined) break;
    out.push(p);
  }
  return out;
}
