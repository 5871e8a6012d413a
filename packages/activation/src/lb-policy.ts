import type { PodTracker } from "./pod-tracker.js";

/** Picks and reserves one tracker, or returns undefined when none has room. Never waits. */
export type LbPolicy = (trackers: readonly PodTracker[]) => PodTracker | undefined;

/** Random source: returns a float in [0, 1), like Math.random (the CC-0 policy uses it as a seed). */
export type RandomSource = () => number;

/** First tracker, in the given (sorted) order, that has room: keeps load on few pods (CC 1-3). */
export function firstAvailablePolicy(): LbPolicy {
  return (trackers) => {
    for (let i = 0; i < trackers.length; i++) {
      const t = trackers[i] as PodTracker;
      if (t.tryReserve()) return t;
    }
    return undefined;
  };
}

/** Round robin starting after the last pick, skipping full trackers (CC > 3). */
export function roundRobinPolicy(): LbPolicy {
  let next = 0;
  return (trackers) => {
    const n = trackers.length;
    // The list may have shrunk since the last pick.
    if (next >= n) next = 0;
    for (let i = 0; i < n; i++) {
      let p = next + i;
      if (p >= n) p -= n;
      const t = trackers[p] as PodTracker;
      if (t.tryReserve()) {
        next = p + 1;
        return t;
      }
    }
    return undefined;
  };
}

const TWO_POW_32 = 4294967296;
const INV_TWO_POW_32 = 1 / TWO_POW_32;

/** Murmur3's finaliser: spreads a seed's bits so that nearby seeds (0.1, 0.1001) start far apart. */
function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Power of two random choices (CC 0): draw two distinct trackers and take the one with fewer requests in
 * flight. With two trackers both are the candidates.
 *
 * Knative flips a coin on a tie. Here the first draw is uniform over all trackers and the second uniform
 * over the others, so the ordered pair is already uniform and keeping the first on a tie sends each
 * candidate half the ties: the same distribution without a coin, whose unpredictable branch cost more than
 * the rest of the pick. For the same reason the draws come from an inline xorshift32 generator rather than a
 * call per draw: `random` is called once, to seed it (tests pass a seeded source to be reproducible).
 */
export function randomChoice2Policy(random: RandomSource): LbPolicy {
  let s = mix32((random() * TWO_POW_32) >>> 0) || 0x9e3779b9;
  return (trackers) => {
    const n = trackers.length;
    if (n === 0) return undefined;
    if (n === 1) {
      const only = trackers[0] as PodTracker;
      return only.tryReserve() ? only : undefined;
    }
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const a = ((s >>> 0) * n * INV_TWO_POW_32) | 0;
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    let b = ((s >>> 0) * (n - 1) * INV_TWO_POW_32) | 0;
    // Take b from the n-1 indices other than a.
    if (b >= a) b++;
    let pick = trackers[a] as PodTracker;
    let alt = trackers[b] as PodTracker;
    if (pick.inFlight > alt.inFlight) {
      const tmp = pick;
      pick = alt;
      alt = tmp;
    }
    if (pick.tryReserve()) return pick;
    return alt.tryReserve() ? alt : undefined;
  };
}

/** Knative's choice of policy by containerConcurrency (d.2). */
export function policyFor(containerConcurrency: number, random: RandomSource): LbPolicy {
  if (containerConcurrency === 0) return randomChoice2Policy(random);
  if (containerConcurrency <= 3) return firstAvailablePolicy();
  return roundRobinPolicy();
}
