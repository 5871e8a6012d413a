import type { Forwarder } from "@thaw/activator";
import { createUndiciForwarder } from "@thaw/activator/node";

/** A forwarder with one keep-alive pool per pod, so the pool of a pod that goes away can be closed alone. */
export interface PodForwarders {
  forward: Forwarder;
  /** Closes the pools of every pod not in `live` (idle sockets now, busy ones after their response). */
  retain(live: Iterable<string>): void;
  close(): Promise<void>;
}

/**
 * The activator's undici forwarder, one instance per pod. A draining queue-proxy exits once its
 * connections are gone; closing the departed pod's pool releases our idle keep-alive sockets at once,
 * instead of after the server's keep-alive hint (minutes).
 */
export function podForwarders(): PodForwarders {
  const pools = new Map<string, ReturnType<typeof createUndiciForwarder>>();
  return {
    forward(dest, req) {
      let pool = pools.get(dest);
      if (!pool) {
        pool = createUndiciForwarder({ keepAliveTimeoutMs: 1000 });
        pools.set(dest, pool);
      }
      return pool.forward(dest, req);
    },
    retain(live) {
      const keep = new Set(live);
      for (const [dest, pool] of pools) {
        if (keep.has(dest)) continue;
        pools.delete(dest);
        void pool.close();
      }
    },
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
