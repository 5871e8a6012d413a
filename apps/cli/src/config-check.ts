import { policyFor, type RevisionPolicy } from "@thaw/autoscaler-service/policy";
import type { ConfigIssue, ServiceConfig, ThawConfig } from "@thaw/config";
import { type Probe, parseProbe } from "@thaw/readiness";

/** A service with everything resolved that `thaw up` needs. */
export interface ResolvedService {
  service: ServiceConfig;
  policy: RevisionPolicy;
  readinessProbe: Probe | undefined;
}

/**
 * Resolves each service of a validated config into what the stack runs: the autoscaling policy from
 * @thaw/autoscaler (config-autoscaler keys + annotations + containerConcurrency) and the typed readiness probe.
 */
export function resolveServices(
  config: ThawConfig,
): { ok: true; value: ResolvedService[] } | { ok: false; issues: ConfigIssue[] } {
  const issues: ConfigIssue[] = [];
  const out: ResolvedService[] = [];
  const seenGlobal = new Set<string>();
  config.services.forEach((service, i) => {
    const at = `services[${i}]`;
    const policy = policyFor({
      global: config.autoscaler,
      autoscaling: service.autoscaling,
      containerConcurrency: service.containerConcurrency,
      autoscalingPath: `${at}.autoscaling`,
      schedules: service.schedules,
      schedulesPath: `${at}.schedules`,
    });
    if (!policy.ok) {
      for (const issue of policy.issues) {
        // The global block is checked once per service; report each of its issues once.
        if (issue.path.startsWith("autoscaler.")) {
          if (seenGlobal.has(issue.path)) continue;
          seenGlobal.add(issue.path);
        }
        issues.push(issue);
      }
    }
    let readinessProbe: Probe | undefined;
    if (service.readinessProbe !== undefined) {
      // @thaw/config already ran Knative's probe rules; this only gets the typed probe.
      const parsed = parseProbe(service.readinessProbe, { path: `${at}.readinessProbe` });
      if (parsed.ok) readinessProbe = parsed.value;
      else issues.push(...parsed.issues);
    }
    if (policy.ok) out.push({ service, policy: policy.value, readinessProbe });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}
