import { fileURLToPath } from "node:url";
import { ATTACH_ENV } from "./attach-main-env.js";
import { type ContainerInspect, EngineClient } from "./engine-api.js";
import { healthCommand, healthGate } from "./health-gate.js";
import { appHostPort, isOurReplica, replicaName } from "./replica.js";
import { defaultQueueProxyImage, SIDECAR_ENV } from "./sidecar.js";
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
  /**
   * With `queueProxy: container`, argv and env of the pod's queue-proxy: the process that runs it as a
   * container beside the app's (sidecar-main.ts). Undefined: Thaw's queue-proxy runs as a host process.
   */
  queueProxyContainer?: { command: string[]; env: Record<string, string> };
}

/**
 * Resolves a `container:` service: finds the engine socket, asks the engine for the container (and Thaw's
 * running copies of it), and reads the host port its `port` answers on. Every failure is one message naming
 * the field and the fix.
 */
export async function containerTarget(
  c: {
    name: string;
    port: number;
    socket?: string;
    queueProxy?: "process" | "container";
    queueProxyImage?: string;
  },
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
  let queueProxyContainer: ContainerTarget["queueProxyContainer"];
  if (c.queueProxy === "container") {
    // The queue-proxy shares the app's network namespace; thaw up reaches it on the host's loopback, so
    // that namespace must be the host's (a published one would have to publish the queue-proxy's ports too,
    // and the first container's ports are fixed when it is created).
    if (found.HostConfig.NetworkMode !== "host") {
      return {
        ok: false,
        message: `${at}.queueProxy: container ${c.name} is on network ${found.HostConfig.NetworkMode ?? "(default)"}; a queue-proxy container shares the app's network namespace and thaw up reaches it on the host's loopback, so create the container with --network host (Compose: network_mode: host), or use queueProxy: process`,
      };
    }
    const image = c.queueProxyImage ?? defaultQueueProxyImage();
    if (!(await engine.hasImage(image))) {
      return {
        ok: false,
        message: `${at}.queueProxyImage: the engine at ${socket.path} has no image ${image}: build Thaw's with npm run images, then load it into this engine (podman save ${image} | podman load), or name another image`,
      };
    }
    queueProxyContainer = {
      command: [process.execPath, fileURLToPath(new URL("./sidecar-main.js", import.meta.url))],
      env: { [ATTACH_ENV.socket]: socket.path, [ATTACH_ENV.name]: c.name, [SIDECAR_ENV.image]: image },
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
      ...(queueProxyContainer ? { queueProxyContainer } : {}),
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
