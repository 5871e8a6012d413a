import { policyFor, type RevisionPolicy } from "@thaw/autoscaler-service";
import type { ConfigIssue, ServiceConfig, ThawConfig } from "@thaw/config";
import { applyRevisionDefaults, type Probe, parseProbe, validateProbe } from "@thaw/readiness";

/** A service with everything resolved that `thaw up` needs. */
export interface ResolvedService {
  service: ServiceConfig;
  policy: RevisionPolicy;
  readinessProbe: Probe | undefined;
}

/**
 * The checks that need the owning packages: `autoscaling` and `autoscaler` through @thaw/autoscaler's
 * parsers (Knative's ranges and cross-field rules), `readinessProbe` through @thaw/readiness (Knative's
 * webhook rules). Every issue at once, with the field path in the file.
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
      const path = `${at}.readinessProbe`;
      const parsed = parseProbe(service.readinessProbe, { path });
      if (!parsed.ok) issues.push(...parsed.issues);
      else {
        // Knative validates after its defaulting webhook ran (b.1 then b.2): default first, then validate.
        const defaulted = applyRevisionDefaults({ containers: [{ readinessProbe: parsed.value }] });
        const probe = validateProbe(defaulted.containers?.[0]?.readinessProbe, { path });
        if (probe.ok) readinessProbe = parsed.value;
        else issues.push(...probe.issues);
      }
    }
    if (policy.ok) out.push({ service, policy: policy.value, readinessProbe });
  });
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value: out };
}
