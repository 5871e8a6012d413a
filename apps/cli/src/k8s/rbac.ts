import { DEFAULT_LEASE_NAME } from "@thaw/autoscaler-service/leader-lease";
import { PART_OF, type RenderOptions } from "./options.js";
import type { K8sObject } from "./service.js";

type Rule = { apiGroups: string[]; resources: string[]; resourceNames?: string[]; verbs: string[] };

/**
 * What the autoscaler does in a service namespace (packages/kubernetes/README.md lists the calls): follow
 * Deployments (list then watch), read and patch their scale subresource, follow EndpointSlices, follow the
 * Deployments' pods (list then watch), whose statuses tell each cold start's phases and why an app fails,
 * and follow the pods' Warning Events (core v1; list then watch), whose messages say what no status does.
 */
const AUTOSCALER_RULES: Rule[] = [
  { apiGroups: ["apps"], resources: ["deployments"], verbs: ["list", "watch"] },
  { apiGroups: ["apps"], resources: ["deployments/scale"], verbs: ["get", "patch"] },
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
  { apiGroups: [""], resources: ["pods"], verbs: ["list", "watch"] },
  { apiGroups: [""], resources: ["events"], verbs: ["list", "watch"] },
];
/** The activator learns its peers and the autoscalers from EndpointSlices in its own namespace. */
const ACTIVATOR_PEER_RULES: Rule[] = [
  { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
];
/** In a service namespace it also reads each revision's Service, for its ClusterIP fallback (d.3). */
const ACTIVATOR_RULES: Rule[] = [
  ...ACTIVATOR_PEER_RULES,
  { apiGroups: [""], resources: ["services"], verbs: ["list", "watch"] },
];
/**
 * The autoscaler's leader election, in the platform namespace only: the elector (packages/kubernetes
 * leader-elector.ts) reads, creates and replaces its one Lease. `create` cannot be limited by name (the
 * object does not exist yet when it is authorized), so reading and replacing are granted on that Lease only.
 */
const LEASE_RULES: Rule[] = [
  { apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["create"] },
  {
    apiGroups: ["coordination.k8s.io"],
    resources: ["leases"],
    resourceNames: [DEFAULT_LEASE_NAME],
    verbs: ["get", "update"],
  },
];

function roleAndBinding(
  name: string,
  ns: string,
  rules: Rule[],
  account: string,
  accountNs: string,
): K8sObject[] {
  const metadata = { name, namespace: ns, labels: { ...PART_OF } };
  return [
    { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata, rules },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata,
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name: account, namespace: accountNs }],
    },
  ];
}

/**
 * Namespaced least-privilege RBAC: Roles and RoleBindings in each service namespace for exactly what the
 * autoscaler and the activator call, a Lease Role for the autoscaler in the platform namespace, and
 * nothing for the hook (it talks only to the activator).
 */
export function rbacObjects(options: RenderOptions, serviceNamespaces: readonly string[]): K8sObject[] {
  const sys = options.systemNamespace;
  const out: K8sObject[] = [
    ...roleAndBinding("thaw-autoscaler-leader", sys, LEASE_RULES, "thaw-autoscaler", sys),
    ...roleAndBinding("thaw-activator-peers", sys, ACTIVATOR_PEER_RULES, "thaw-activator", sys),
  ];
  for (const ns of [...new Set(serviceNamespaces)].sort()) {
    out.push(
      ...roleAndBinding("thaw-autoscaler", ns, AUTOSCALER_RULES, "thaw-autoscaler", sys),
      ...roleAndBinding("thaw-activator", ns, ACTIVATOR_RULES, "thaw-activator", sys),
    );
  }
  return out;
}
