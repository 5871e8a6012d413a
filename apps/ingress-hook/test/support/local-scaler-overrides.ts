import type { ActivatorOverrides } from "@thaw/activator/node";
import type { LocalScaler, PodInfo } from "@thaw/autoscaler-service";

/**
 * Where the activator learns pods, from `thaw up`'s local scaler: every pod's address as soon as it is
 * started, ready or not (the activator probes them itself).
 */
export function scalerEndpoints(scaler: LocalScaler): NonNullable<ActivatorOverrides["endpoints"]> {
  const addresses = (pods: PodInfo[]) => pods.map((p) => p.address);
  return {
    subscribe(key, onChange) {
      onChange(addresses(scaler.pods(key)));
      return scaler.subscribe(key, (pods) => onChange(addresses(pods)));
    },
  };
}

/** The activator's cold-start poke: the first one for a revision scales it to `scale` pods, later ones do nothing. */
export function scaleOnFirstPoke(
  scaler: LocalScaler,
  scale: number,
): NonNullable<ActivatorOverrides["scaler"]> {
  const poked = new Set<string>();
  return {
    poke: (key) => {
      if (poked.has(key.name)) return;
      poked.add(key.name);
      void scaler.scale(key, scale);
    },
  };
}
