import { podSampleSize } from "@thaw/autoscaler";
import type { PodInfo } from "./scalers/scaler.js";

/**
 * Chooses the pods to scrape this round (e.4): Knative's sample size, pods older than the stable window
 * first (their averages are settled), the rest at random. `random` returns [0, 1) and is a parameter so
 * tests are deterministic.
 */
export function samplePods(
  pods: readonly PodInfo[],
  now: number,
  stableWindowMs: number,
  random: () => number,
): PodInfo[] {
  const n = podSampleSize(pods.length);
  const old = shuffle(
    pods.filter((p) => now - p.startedAt >= stableWindowMs),
    random,
  );
  const young = shuffle(
    pods.filter((p) => now - p.startedAt < stableWindowMs),
    random,
  );
  return [...old, ...young].slice(0, n);
}

function shuffle<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
