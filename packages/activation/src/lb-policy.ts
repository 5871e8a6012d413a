import type { PodTracker } from "./pod-tracker.js";

/** Picks and reserves one tracker, or returns undefined when none has room. Never waits. */
export type LbPolicy = (trackers: readonly PodTracker[]) => PodTracker | undefined;

/** Random source: returns a float in [0, 1), like Math.random. */
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

/**
 * Power of two random choices (CC 0): draw two distinct trackers, take the one with fewer requests in
 * flight, a fair coin on a tie. With two trackers both are the candidates.
 */
export function randomChoice2Policy(random: RandomSource): LbPolicy {
  return (trackers) => {
    const n = trackers.length;
    if (n === 0) return undefined;
    if (n === 1) {
      const only = trackers[0] as PodTracker;
      return only.tryReserve() ? only : undefined;
    }
    // One draw supplies both distinct indices and the tie-breaking coin, peeled off its fraction by
    // multiplication: a second Math.random() or a division on doubles would cost more than the rest.
    const x = random() * n;
    const a = x | 0;
    const y = (x - a) * (n - 1);
    let b = y | 0;
    // Take b from the n-1 indices other than a.
    if (b >= a) b++;
    const coin = y - (y | 0) < 0.5;
    let pick = trackers[a] as PodTracker;
    let alt = trackers[b] as PodTracker;
    if (pick.inFlight > alt.inFlight || (pick.inFlight === alt.inFlight && coin)) {
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
