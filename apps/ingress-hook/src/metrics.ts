import { MetricsRegistry } from "@thaw/protocol";
import type { IngressHook } from "./decision/hook.js";

/** The hook's Prometheus metrics and the watch-state callback that feeds two of them. */
export interface HookMetrics {
  registry: MetricsRegistry;
  /** Pass as (or call from) `onWatchState`: counts the watch stream's connects and losses. */
  watchState(state: "connected" | "lost"): void;
}

/**
 * The ingress hook's metrics (docs/metrics.md): decisions by outcome, activations, and its watch stream to
 * the activator. Process-wide, no revision label: the warm decision stays one increment, no lookup. Read
 * from `hook.stats` on scrape.
 */
export function hookMetrics(hook: IngressHook): HookMetrics {
  const registry = new MetricsRegistry();
  const decisions = registry.counter(
    "thaw_hook_decisions_total",
    "Forward-auth and middleware decisions: warm_allow (from the warm cache), cold_allow (after an activation), deny.",
    ["decision"],
  );
  const activations = registry.counter(
    "thaw_hook_activations_total",
    "Activations asked of the activator (one per cold revision, however many requests wait).",
  );
  const connects = registry.counter(
    "thaw_hook_watch_connects_total",
    "Times the watch stream to the activator (GET /v1/watch) connected; more than one means it reconnected.",
  );
  const losses = registry.counter(
    "thaw_hook_watch_losses_total",
    "Times the watch stream to the activator dropped.",
  );
  const warm = decisions.child(["warm_allow"]);
  const cold = decisions.child(["cold_allow"]);
  const deny = decisions.child(["deny"]);
  registry.onCollect(() => {
    warm.value = hook.stats.warmAllows;
    cold.value = hook.stats.coldAllows;
    deny.value = hook.stats.denies;
    activations.set([], hook.stats.activations);
  });
  const connected = connects.child([]);
  const lost = losses.child([]);
  return {
    registry,
    watchState(state) {
      if (state === "connected") connected.value++;
      else lost.value++;
    },
  };
}
