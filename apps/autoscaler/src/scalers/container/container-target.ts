import { fileURLToPath } from "node:url";
import { ATTACH_ENV } from "./attach-main-env.js";
import { EngineClient } from "./engine-api.js";
import { resolveSocket } from "./socket.js";

/** A `container:` service checked against its engine: what its pod runs and where its app answers. */
export interface ContainerTarget {
  socket: string;
  name: string;
  /** Host port the app answers on (its own port with host networking, else the published one). */
  userPort: number;
  /** True when it already ran at start-up: it is adopted as the revision's one pod, not started again. */
  running: boolean;
  /** argv and env of the pod's "app": the attach process (attach-main.ts). */
  command: string[];
  env: Record<string, string>;
}

/**
 * Resolves a `container:` service: finds the engine socket, asks the engine for the container, and reads
 * the host port its `port` answers on. Every failure is one message naming the field and the fix.
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
  const userPort = hostPort(found, c.port);
  if (userPort === undefined) {
    return {
      ok: false,
      message: `${at}.port: container ${c.name} does not publish port ${c.port}: create it with --network host (the app on ${c.port}) or -p 127.0.0.1:HOSTPORT:${c.port}`,
    };
  }
  return {
    ok: true,
    value: {
      socket: socket.path,
      name: c.name,
      userPort,
      running: found.State.Running,
      command: [process.execPath, fileURLToPath(new URL("./attach-main.js", import.meta.url))],
      env: { [ATTACH_ENV.socket]: socket.path, [ATTACH_ENV.name]: c.name },
    },
  };
}

/** The host port `port/tcp` of the container answers on, from its host config (known while it is stopped). */
function hostPort(
  found: { HostConfig: { NetworkMode?: string; PortBindings?: unknown } },
  port: number,
): number | undefined {
  if (found.HostConfig.NetworkMode === "host") return port;
  const bindings = (found.HostConfig.PortBindings ?? {}) as Record<string, { HostPort?: string }[] | null>;
  const hp = Number(bindings[`${port}/tcp`]?.[0]?.HostPort ?? "");
  return Number.isInteger(hp) && hp > 0 ? hp : undefined;
}
