import type { ContainerInspect } from "./engine-api.js";

/** Labels Thaw puts on the replicas it creates: which container they copy, and which replica they are. */
export const REPLICA_LABELS = { of: "thaw.replica-of", index: "thaw.replica" } as const;

/** Compose's replica number label, rewritten on a copy of a Compose container so Compose counts it right. */
const COMPOSE_NUMBER = "com.docker.compose.container-number";

/**
 * The name of replica `index` (2, 3, ...) of the container `first`, as Compose's `--scale` names them:
 * `app-web-1` → `app-web-2`; a name without a trailing `-1` gets `-<index>` added (`web` → `web-2`).
 */
export function replicaName(first: string, index: number): string {
  const m = /^(.*)[-_]1$/.exec(first);
  return `${m ? m[1] : first}-${index}`;
}

/** True when `c` is replica `index` of `first` that Thaw created (its labels say so, its name matches). */
export function isOurReplica(c: ContainerInspect, first: string, index: number): boolean {
  const labels = c.Config.Labels ?? {};
  return (
    c.Name.replace(/^\//, "") === replicaName(first, index) &&
    labels[REPLICA_LABELS.of] === first &&
    labels[REPLICA_LABELS.index] === String(index)
  );
}

/**
 * The create body of replica `index`, copied from the first container's inspect: its image, command,
 * environment, labels, stop signal and timeout, health check and host config, with its app moved to
 * `hostPort`: with host networking through `PORT` in its environment (the app must read it, as Knative
 * apps do), otherwise by publishing its `port` on `hostPort` (same host address as the first one's).
 */
export function replicaBody(
  first: ContainerInspect,
  o: { firstName: string; index: number; port: number; hostPort: number },
): Record<string, unknown> {
  const { Hostname: _h, Domainname: _d, Labels, Env, ...config } = first.Config;
  const labels: Record<string, string> = {
    ...(Labels ?? {}),
    [REPLICA_LABELS.of]: o.firstName,
    [REPLICA_LABELS.index]: String(o.index),
  };
  if (labels[COMPOSE_NUMBER] !== undefined) labels[COMPOSE_NUMBER] = String(o.index);
  const hostConfig: Record<string, unknown> = {
    ...first.HostConfig,
    Ulimits: ulimits(first.HostConfig.Ulimits),
  };
  let env = Env ?? [];
  if (first.HostConfig.NetworkMode === "host") {
    env = [...env.filter((e) => !e.startsWith("PORT=")), `PORT=${o.hostPort}`];
  } else {
    // Only the app's port is published: the first one's other fixed host ports are taken by it.
    const bindings = (first.HostConfig.PortBindings ?? {}) as Record<string, { HostIp?: string }[] | null>;
    const hostIp = bindings[`${o.port}/tcp`]?.[0]?.HostIp || "127.0.0.1";
    hostConfig.PortBindings = { [`${o.port}/tcp`]: [{ HostIp: hostIp, HostPort: String(o.hostPort) }] };
  }
  return { ...config, Labels: labels, Env: env, HostConfig: hostConfig };
}

/**
 * The host port the app of `c` answers on, known while it is stopped too: with host networking its own
 * `port`, or for a replica the PORT Thaw gave it; otherwise the host port `port/tcp` is published on.
 */
export function appHostPort(c: ContainerInspect, port: number): number | undefined {
  if (c.HostConfig.NetworkMode === "host") {
    if (c.Config.Labels?.[REPLICA_LABELS.index] === undefined) return port;
    const env = (c.Config.Env ?? []).find((e) => e.startsWith("PORT="));
    return positive(env?.slice("PORT=".length));
  }
  const bindings = (c.HostConfig.PortBindings ?? {}) as Record<string, { HostPort?: string }[] | null>;
  return positive(bindings[`${port}/tcp`]?.[0]?.HostPort);
}

function positive(s: string | undefined): number | undefined {
  const n = Number(s ?? "");
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * Ulimits as create takes them: Podman's inspect names them `RLIMIT_NOFILE` where its create (and Docker's
 * inspect and create) use `nofile`.
 */
function ulimits(u: unknown): unknown {
  if (!Array.isArray(u)) return u;
  return u.map((l: { Name?: string }) =>
    typeof l.Name === "string" ? { ...l, Name: l.Name.replace(/^RLIMIT_/, "").toLowerCase() } : l,
  );
}
