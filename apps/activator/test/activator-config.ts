import type { ActivatorConfig, StaticRevision } from "../src/node/config.js";

/**
 * A Node activator's config for a test: loopback on a free port, no token, no autoscaler, no drain delay
 * and a 1 s drain timeout, serving `revisions`; `extra` overrides any field (token, autoscalerUrl, ...).
 */
export function testActivatorConfig(
  revisions: StaticRevision[],
  extra: Partial<ActivatorConfig> = {},
): ActivatorConfig {
  return {
    host: "127.0.0.1",
    port: 0,
    token: undefined,
    autoscalerUrl: undefined,
    podName: "test-activator",
    drainDelayMs: 0,
    drainTimeoutMs: 1000,
    tunnelIdleMs: 300_000,
    metricsPath: "/metrics",
    revisions,
    ...extra,
  };
}
