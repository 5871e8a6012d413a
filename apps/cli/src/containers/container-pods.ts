import { type ContainerTarget, containerTarget } from "@thaw/autoscaler-service";
import type { ResolvedService } from "../config-check.js";

/** What a `run:` or `container:` service's pod runs: the app's argv and env, and its fixed port if any. */
export interface PodApp {
  command: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd?: string;
  portEnv: string;
  /** A container's pods are numbered replicas (the container, then copies of it; see LocalServiceSpec). */
  replicas?: { env: string; userPort: (n: number) => number | undefined };
  /** A container's health check, when it has one (see LocalServiceSpec). */
  readinessGate?: (replica: number) => Promise<boolean>;
  /** With `container.queueProxy: container`, what runs the queue-proxy as a container (see LocalServiceSpec). */
  queueProxyRunner?: { command: readonly string[]; env: Readonly<Record<string, string>> };
}

/**
 * Checks every `container:` service against its engine (socket, container, port), all before anything
 * starts; rejects with one line per problem, each naming the field and the fix.
 */
export async function containerTargets(
  services: readonly ResolvedService[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<Map<ResolvedService, ContainerTarget>> {
  const out = new Map<ResolvedService, ContainerTarget>();
  const problems: string[] = [];
  await Promise.all(
    services.map(async (s, i) => {
      const c = s.service.container;
      if (!c) return;
      const t = await containerTarget(c, env, `services[${i}].container`);
      if (t.ok) out.set(s, t.value);
      else problems.push(t.message);
    }),
  );
  if (problems.length > 0) throw new Error(problems.join("\n"));
  return out;
}

/** The pod's app: the service's `run:`, or for a container the attach process on the container's port. */
export function podApp(s: ResolvedService, target: ContainerTarget | undefined): PodApp {
  const run = s.service.run;
  if (run)
    return { command: run.command, env: run.env, ...(run.cwd ? { cwd: run.cwd } : {}), portEnv: run.portEnv };
  if (!target) throw new Error(`service ${s.service.name} has neither run nor a checked container`);
  return {
    command: target.command,
    env: target.env,
    portEnv: "PORT",
    replicas: { env: target.replicaEnv, userPort: target.userPortOf },
    ...(target.readinessGate ? { readinessGate: target.readinessGate } : {}),
    ...(target.queueProxyContainer ? { queueProxyRunner: target.queueProxyContainer } : {}),
  };
}

/**
 * The cold-start moment an attach process's output line marks (attach-main.ts says `created NAME in N ms`
 * and `started NAME in N ms` once the engine's call returned), if any.
 */
export function containerMoment(line: string): "containerCreated" | "containerStarted" | undefined {
  if (!line.startsWith("thaw-container: ")) return undefined;
  if (line.startsWith("thaw-container: created ")) return "containerCreated";
  if (line.startsWith("thaw-container: started ")) return "containerStarted";
  return undefined;
}
