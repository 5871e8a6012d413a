import { podSampleSize } from "./sample-size.js";

/** A ready pod the autoscaler could scrape. */
export interface ScrapeCandidate {
  /** Whatever identifies the pod to the caller (IP, name). */
  id: string;
  /** When the pod started, ms since the epoch. */
  startedAtMs: number;
}

/**
 * Picks the pods to scrape this tick: `podSampleSize(pods.length)` of them, pods that have run for at least
 * a stable window first (their averages cover a whole window; young pods would skew it), each group in
 * random order. `random` returns values in [0, 1), so tests can fix it.
 */
export function chooseScrapeSample<T extends ScrapeCandidate>(
  pods: readonly T[],
  now: number,
  stableWindowMs: number,
  random: () => number,
): T[] {
  const n = podSampleSize(pods.length);
  const old: T[] = [];
  const young: T[] = [];
  for (const p of pods) (now - p.startedAtMs >= stableWindowMs ? old : young).push(p);
  shuffle(old, random);
  shuffle(young, random);
  return [...old, ...young].slice(0, n);
}

function shuffle<T>(xs: T[], random: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = xs[i] as T;
    xs[i] = xs[j] as T;
    xs[j] = t;
  }
}
