import type { DeciderSpec } from "./decider-spec.js";

/** How many activators should carry a revision (knative-spec.md d.4). */
export function activatorCount(
  readyPods: number,
  spec: Pick<DeciderSpec, "targetBurstCapacity" | "totalValue" | "activatorCapacity">,
): number {
  const MIN = 2;
  if (spec.targetBurstCapacity === 0) return MIN;
  let capacity = readyPods * spec.totalValue;
  // TBC = −1 means every request goes through the activator; only the pods' capacity counts then.
  if (spec.targetBurstCapacity > 0) capacity += spec.targetBurstCapacity;
  return Math.max(MIN, Math.ceil(capacity / spec.activatorCapacity));
}
