import { numericPort } from "./queue-env.js";
import type { Container, Probe } from "./types.js";

/** The probes kubelet still runs on the user container once the queue-proxy has taken readiness over. */
export interface UserContainerProbes {
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
}

/**
 * What the reconciler leaves on the serving container (knative-spec.md b.3): the readiness probe only if it
 * is `exec` (kubelet runs those; the queue-proxy runs the rest), and a liveness probe whose httpGet/tcpSocket
 * port points at the user port. With multi-container probing a non-zero numeric liveness port is kept.
 */
export function userContainerProbes(
  container: Container,
  userPort: number,
  options: { multiContainerProbing?: boolean } = {},
): UserContainerProbes {
  const out: UserContainerProbes = {};
  if (container.readinessProbe?.exec) out.readinessProbe = structuredClone(container.readinessProbe);
  if (container.startupProbe) out.startupProbe = structuredClone(container.startupProbe);
  const live = container.livenessProbe;
  if (live) {
    const copy = structuredClone(live);
    for (const h of ["httpGet", "tcpSocket"] as const) {
      const action = copy[h];
      if (!action) continue;
      const own = options.multiContainerProbing ? numericPort(action.port) : undefined;
      action.port = own ?? userPort;
    }
    out.livenessProbe = copy;
  }
  return out;
}
