import { stat } from "node:fs/promises";

/** Where engines put their API socket when DOCKER_HOST is unset: rootful Podman's, then Docker's. */
export const DEFAULT_SOCKETS = ["/run/podman/podman.sock", "/var/run/docker.sock"];

/** The fix printed with every socket error. */
const FIX =
  "start the engine's API (Podman: `podman system service --time=0 unix:///run/podman/podman.sock`; Docker: " +
  "the docker service), or point container.socket or DOCKER_HOST=unix:///path/to/engine.sock at it";

/**
 * The engine socket of a service: its `container.socket`, else DOCKER_HOST's unix path, else the first
 * default socket that exists. Rejects with the fix when there is none, or when DOCKER_HOST is not unix://.
 */
export async function resolveSocket(
  configured: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
  if (configured !== undefined) return exists(configured, "container.socket");
  const host = env.DOCKER_HOST?.trim();
  if (host) {
    if (!host.startsWith("unix://")) {
      return { ok: false, message: `DOCKER_HOST=${host}: only unix:// sockets are supported; ${FIX}` };
    }
    return exists(host.slice("unix://".length), "DOCKER_HOST");
  }
  for (const path of DEFAULT_SOCKETS) if (await isSocket(path)) return { ok: true, path };
  return { ok: false, message: `no container engine socket at ${DEFAULT_SOCKETS.join(" or ")}: ${FIX}` };
}

async function exists(
  path: string,
  from: string,
): Promise<{ ok: true; path: string } | { ok: false; message: string }> {
  if (await isSocket(path)) return { ok: true, path };
  return { ok: false, message: `${from}: no container engine socket at ${path}: ${FIX}` };
}

async function isSocket(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isSocket();
  } catch {
    return false;
  }
}
