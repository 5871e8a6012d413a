/**
 * Chooses the pod an allowed request goes to. The hook has no per-pod load figures (it sees no responses),
 * so it spreads requests round-robin per revision, as the activator's policy does for unlimited
 * concurrency. Swapped for @thaw/activation's policy once that package is in main.
 */
export interface UpstreamPicker {
  pick(key: string, endpoints: readonly string[]): string | undefined;
}

/** Round-robin per revision key. */
export function roundRobinPicker(): UpstreamPicker {
  const next = new Map<string, number>();
  return {
    pick(key, endpoints) {
      const n = endpoints.length;
      if (n === 0) return undefined;
      if (n === 1) return endpoints[0];
      const i = next.get(key) ?? 0;
      next.set(key, (i + 1) % n);
      return endpoints[i % n];
    },
  };
}
