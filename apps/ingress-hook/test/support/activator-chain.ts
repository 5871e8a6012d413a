import {
  type ActivatorOverrides,
  type RunningActivator,
  readConfig,
  startActivator,
} from "@thaw/activator/node";
import type { ServiceRoute } from "../../src/decision/resolvers.js";
import { type HookService, type HookServiceOptions, startIngressHook } from "../../src/node/service.js";
import { HOOK_TOKEN, type NginxProcess, startNginxForHook } from "./nginx-process.js";

/** The activator's calls the hook made, by path. */
export interface ActivatorCalls {
  activate: number;
  watch: number;
  other: number;
}

/** What {@link startActivatorChain} starts. */
export interface ActivatorChainOptions {
  /** `--revisions` of the activator, as its bin takes them. */
  revisions: readonly Record<string, unknown>[];
  services: ServiceRoute[];
  token: string;
  /** The scaler (cold-start poke) and, optionally, where the activator learns pods. */
  overrides: Pick<ActivatorOverrides, "scaler" | "endpoints" | "tracer" | "warm">;
  /** More flags of the activator's bin (e.g. `--autoscaler ws://...`). */
  activatorArgs?: readonly string[];
  /** Hook options beyond the activator's address, token and services. */
  hook?: Partial<Omit<HookServiceOptions, "activatorUrl" | "activatorToken" | "services" | "port">>;
  /** Where nginx sends activator-bound requests (default: the activator's port). */
  nginxActivatorPort?: number;
}

/** nginx (infra/nginx/nginx.conf) -> the hook service -> the real @thaw/activator (Node), on loopback. */
export interface ActivatorChain {
  activator: RunningActivator;
  hook: HookService;
  nginx: NginxProcess;
  /** nginx's port. */
  port: number;
  /** nginx's h2c (HTTP/2, gRPC) port. */
  h2Port: number;
  calls: ActivatorCalls;
  close(): Promise<void>;
}

/**
 * Starts the chain and resolves once the hook's watch stream is connected and nginx answers. The activator
 * is configured through its own configuration reader with the flags its bin takes.
 */
export async function startActivatorChain(o: ActivatorChainOptions): Promise<ActivatorChain> {
  const read = readConfig(
    [
      ...[
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--token",
        o.token,
        "--revisions",
        JSON.stringify(o.revisions),
      ],
      ...(o.activatorArgs ?? []),
    ],
    {},
  );
  if (!read.ok) throw new Error(`activator config: ${JSON.stringify(read.issues)}`);
  const activator = await startActivator(read.config, o.overrides);
  const calls: ActivatorCalls = { activate: 0, watch: 0, other: 0 };
  let watchUp: () => void = () => {};
  const watching = new Promise<void>((r) => {
    watchUp = r;
  });
  const hook = await startIngressHook({
    activationTimeoutMs: 1500,
    // The token infra/nginx/nginx.conf sends in its auth locations: without it every request here fails.
    token: HOOK_TOKEN,
    ...o.hook,
    port: 0,
    activatorUrl: `http://127.0.0.1:${activator.port}`,
    activatorToken: o.token,
    services: o.services,
    // Counts what the activator receives from the hook.
    fetch: (r) => {
      const path = new URL(r.url).pathname;
      if (path === "/v1/activate") calls.activate++;
      else if (path === "/v1/watch") calls.watch++;
      else calls.other++;
      return fetch(r);
    },
    onWatchState: (s) => {
      if (s === "connected") watchUp();
    },
  });
  await watching;
  const { nginx, port, h2Port } = await startNginxForHook(hook.port, o.nginxActivatorPort ?? activator.port);
  return {
    activator,
    hook,
    nginx,
    port,
    h2Port,
    calls,
    async close() {
      await nginx.stop();
      await hook.close();
      await activator.close();
    },
  };
}
