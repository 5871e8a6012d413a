import { EngineClient, resolveSocket } from "@thaw/autoscaler-service";
import { type ConfigIssue, parseConfig, type ThawConfig } from "@thaw/config";
import {
  COMPOSE_LABELS,
  composeReplicaProblem,
  type LabelledService,
  serviceFromLabels,
  THAW_LABELS,
} from "./labels.js";

/**
 * `containers: { discover: true }`: the engine's containers labelled `thaw.enable=true` become services
 * beside the configured ones, validated with the config's own rules. A container a `services[].container`
 * already names is the config's (its labels are not read), and Thaw's own copies are never services.
 * Every issue names the container and its label, and says how to fix it.
 */
export async function withDiscoveredContainers(
  config: ThawConfig,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ ok: true; config: ThawConfig } | { ok: false; issues: ConfigIssue[] }> {
  if (!config.containers?.discover) return { ok: true, config };
  const socket = await resolveSocket(config.containers.socket, env);
  if (!socket.ok) return { ok: false, issues: [{ path: "containers.socket", message: socket.message }] };
  const engine = new EngineClient(socket.path);
  let listed: Awaited<ReturnType<EngineClient["list"]>>;
  try {
    listed = await engine.list([THAW_LABELS.enable]);
  } catch (e) {
    const fix = `start it, e.g. podman system service --time=0 unix://${socket.path}`;
    return {
      ok: false,
      issues: [
        {
          path: "containers.socket",
          message: `the engine at ${socket.path} does not answer (${(e as Error).message}): ${fix}`,
        },
      ],
    };
  }
  const named = new Set(config.services.flatMap((s) => (s.container ? [s.container.name] : [])));
  const found: { name: string; labelled: LabelledService }[] = [];
  const at = (name: string, label: string) => `container ${name}, label ${label}`;
  const fix = "fix the label on the container, or name the container under services: with container.name";
  const issues: ConfigIssue[] = [];
  for (const c of listed.sort((a, b) => nameOf(a).localeCompare(nameOf(b)))) {
    const name = nameOf(c);
    if (named.has(name) || c.Labels?.["thaw.replica-of"] !== undefined) continue;
    // Any other value would leave the container unserved without a word: `yes`, `True`, `1` are typos.
    const enable = c.Labels?.[THAW_LABELS.enable];
    if (enable === "false") continue;
    if (enable !== "true") {
      issues.push({
        path: at(name, THAW_LABELS.enable),
        message: `must be "true" (serve it) or "false", not ${JSON.stringify(enable)} (${fix})`,
      });
      continue;
    }
    const replica = composeReplicaProblem(c.Labels ?? {});
    if (replica) {
      issues.push({ path: at(name, COMPOSE_LABELS.number), message: replica });
      continue;
    }
    const inspected = await engine.inspect(c.Id);
    const exposed = Object.keys((inspected?.Config.ExposedPorts ?? {}) as Record<string, unknown>)
      .filter((p) => p.endsWith("/tcp"))
      .map((p) => Number.parseInt(p, 10));
    found.push({
      name,
      labelled: serviceFromLabels({ name, labels: c.Labels ?? {}, exposed, socket: socket.path }),
    });
  }
  for (const { name, labelled } of found) {
    for (const p of labelled.problems)
      issues.push({ path: at(name, p.label), message: `${p.message} (${fix})` });
  }
  const first = config.services.length;
  const parsed = parseConfig({
    ...config,
    services: [...config.services, ...found.map((f) => f.labelled.service)],
  });
  if (parsed.ok && issues.length === 0) return { ok: true, config: parsed.value };
  // Issues of a discovered service are told by container and label; the file's own keep their paths.
  for (const issue of parsed.ok ? [] : parsed.issues) {
    const m = /^services\[(\d+)\]\.?(.*)$/.exec(issue.path);
    const f = m ? found[Number(m[1]) - first] : undefined;
    if (!m || !f) issues.push(issue);
    else
      issues.push({ path: at(f.name, f.labelled.labelOf(m[2] ?? "")), message: `${issue.message} (${fix})` });
  }
  return { ok: false, issues };
}

function nameOf(c: { Names: string[]; Id: string }): string {
  return (c.Names[0] ?? c.Id).replace(/^\//, "");
}
