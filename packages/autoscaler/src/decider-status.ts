import type { DeciderSpec } from "./decider-spec.js";

/** What the multiscaler publishes for a revision after each tick. */
export interface DeciderStatus {
  /** −1 until the first valid tick ("unknown"). */
  desiredScale: number;
  excessBurstCapacity: number;
}

/**
 * Status of a freshly created decider: desired scale unknown, and an EBC that assumes the initial scale is
 * up so the activator is in path (or not) from the start.
 */
export function initialDeciderStatus(
  spec: Pick<DeciderSpec, "targetBurstCapacity" | "totalValue" | "initialScale">,
): DeciderStatus {
  const tbc = spec.targetBurstCapacity;
  const ebc = tbc === -1 || tbc === 0 ? tbc : Math.trunc(spec.initialScale * spec.totalValue - tbc) | 0;
  return { desiredScale: -1, excessBurstCapacity: ebc };
}

/** True when both numbers are negative or both are non-negative (0 counts as non-negative). */
export function sameSign(a: number, b: number): boolean {
  return a < 0 === b < 0;
}

/** A tick is published when the desired scale changed or the EBC crossed zero (activator in or out of path). */
export function shouldPublish(prev: DeciderStatus, next: DeciderStatus): boolean {
  return (
    prev.desiredScale !== next.desiredScale || !sameSign(prev.excessBurstCapacity, next.excessBurstCapacity)
  );
}

/** The PodAutoscaler's reported scales: actual = ready pods; an unknown want (−1) keeps a known desired scale. */
export function podAutoscalerScales(
  prevDesired: number | undefined,
  readyPods: number,
  want: number,
): { actualScale: number; desiredScale: number } {
  const desiredScale = want >= 0 || prevDesired === undefined ? want : prevDesired;
  return { actualScale: readyPods, desiredScale };
}
