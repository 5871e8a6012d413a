/** Go's MaxInt32: Knative's stand-in for "no limit" in revision capacities (d.2). */
export const MAX_INT32 = 2147483647;

/**
 * A revision's capacity at this activator (d.2): CC per assigned tracker, else CC per backend shared
 * among the activators (at least 1); unlimited (MAX_INT32) once there are backends and CC is 0.
 */
export function calculateCapacity(
  containerConcurrency: number,
  backendCount: number,
  numTrackers: number,
  numActivators: number,
): number {
  let cap: number;
  if (numTrackers > 0) {
    cap = containerConcurrency * numTrackers;
  } else {
    cap = containerConcurrency * backendCount;
    if (cap > 0) cap = Math.max(1, Math.trunc(cap / Math.max(1, numActivators)));
  }
  if (backendCount > 0 && (containerConcurrency === 0 || cap > MAX_INT32)) cap = MAX_INT32;
  return cap;
}

/** This activator's position among the revision's sorted activator IPs; -1 when absent. */
export function inferActivatorIndex(sortedActivatorIps: readonly string[], self: string): number {
  return sortedActivatorIps.indexOf(self);
}

/** Which block of `numTrackers` sorted pods activator `selfIndex` of `numActivators` owns (d.2). */
export function pickIndices(
  numTrackers: number,
  selfIndex: number,
  numActivators: number,
): { beginIndex: number; endIndex: number; remnants: number } {
  if (numActivators > numTrackers) {
    // More activators than pods: activators share pods round the circle.
    const begin = selfIndex % numTrackers;
    return { beginIndex: begin, endIndex: begin + 1, remnants: 0 };
  }
  const per = Math.trunc(numTrackers / numActivators);
  const begin = selfIndex * per;
  return { beginIndex: begin, endIndex: begin + per, remnants: numTrackers % numActivators };
}

/**
 * The subset of sorted destinations this activator sends to: its block from `pickIndices` plus, for
 * the first `remnants` activators, one of the leftover pods at the end. Unknown index or a single
 * activator takes everything.
 */
export function assignSlice<T>(sorted: readonly T[], selfIndex: number, numActivators: number): T[] {
  if (selfIndex < 0 || numActivators <= 1 || sorted.length <= 1) return sorted.slice();
  const { beginIndex, endIndex, remnants } = pickIndices(sorted.length, selfIndex, numActivators);
  const out = sorted.slice(beginIndex, endIndex);
  if (remnants > 0 && selfIndex < remnants) out.push(sorted[sorted.length - remnants + selfIndex] as T);
  return out;
}

/**
 * How many activators a revision is spread over (d.4): 2 without burst capacity, else enough to hold
 * the ready pods' total capacity plus the burst capacity, and at least 2.
 */
export function activatorsForRevision(
  readyPods: number,
  totalValue: number,
  targetBurstCapacity: number,
  activatorCapacity: number,
): number {
  if (targetBurstCapacity === 0) return 2;
  const needed = Math.ceil((readyPods * totalValue + Math.max(targetBurstCapacity, 0)) / activatorCapacity);
  return Math.max(2, needed);
}

/** Replaces the port of a `host:port` (IPv6 hosts in brackets stay bracketed). */
export function withPort(hostPort: string, port: number): string {
  const colon = hostPort.lastIndexOf(":");
  const host = colon >= 0 && !hostPort.endsWith("]") ? hostPort.slice(0, colon) : hostPort;
  return `${host}:${port}`;
}
