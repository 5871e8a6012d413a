/** The `spec` of a `coordination.k8s.io/v1` Lease as leader election reads and writes it. */
export interface LeaseSpecLike {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number | null;
  /** MicroTime text, e.g. `2026-01-02T03:04:05.123456Z`. */
  acquireTime?: string | Date | null;
  renewTime?: string | Date | null;
  leaseTransitions?: number | null;
}

/** Formats epoch ms as a Kubernetes MicroTime (RFC 3339 with exactly six fractional digits, UTC). */
export function microTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000Z`;
}

/**
 * The spec a candidate writes to take or keep the lease at `now`: the same holder renews (acquire time and
 * transitions kept), a new holder counts one more transition.
 */
export function claimLease(
  current: LeaseSpecLike | undefined,
  identity: string,
  now: number,
  leaseDurationSeconds: number,
): LeaseSpecLike {
  const same = current?.holderIdentity === identity;
  const transitions = current?.leaseTransitions ?? 0;
  return {
    holderIdentity: identity,
    leaseDurationSeconds,
    acquireTime: same && current?.acquireTime ? toText(current.acquireTime) : microTime(now),
    renewTime: microTime(now),
    leaseTransitions: !current ? 0 : same ? transitions : transitions + 1,
  };
}

/** The spec a leader writes when it steps down on purpose, so a follower need not wait for expiry. */
export function releaseLease(current: LeaseSpecLike, now: number): LeaseSpecLike {
  return { ...current, holderIdentity: "", leaseDurationSeconds: 1, renewTime: microTime(now) };
}

function toText(t: string | Date): string {
  return typeof t === "string" ? t : microTime(t.getTime());
}
