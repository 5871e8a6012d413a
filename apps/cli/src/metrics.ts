import type { LocalCoordinator, Telemetry } from "@thaw/activator";
import { createMetrics } from "@thaw/activator/node";
import { type AutoscalerMetrics, type AutoscalerService, autoscalerMetrics } from "@thaw/autoscaler-service";
import { hookMetrics, type IngressHook } from "@thaw/ingress-hook";
import { renderAll } from "@thaw/protocol";

/** What `thaw up` serves at `GET /_thaw/metrics`: every in-process component's metrics on one page. */
export interface StackMetrics {
  /** Prometheus text of the activator, autoscaler and hook registries (docs/metrics.md). */
  render(): string;
  /** The autoscaler's families (its `coldStartPhase` histogram is filled where phases are measured). */
  autoscaler: AutoscalerMetrics;
}

/** Composes the registries of the parts `thaw up` runs in one process (each family lives in one of them). */
export function stackMetrics(parts: {
  telemetry: Telemetry;
  coordinator: LocalCoordinator;
  service: AutoscalerService;
  hook: IngressHook;
}): StackMetrics {
  const autoscaler = autoscalerMetrics(parts.service);
  const registries = [
    createMetrics({ telemetry: parts.telemetry, coordinator: parts.coordinator }),
    autoscaler.registry,
    hookMetrics(parts.hook).registry,
  ];
  return { render: () => renderAll(registries), autoscaler };
}
