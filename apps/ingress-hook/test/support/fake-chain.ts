import type { AddressInfo } from "node:net";
import { type ServerType, serve } from "@hono/node-server";
import { type HookService, type HookServiceOptions, startIngressHook } from "../../src/node/service.js";
import { FakeActivator, type FakeRevision } from "./fake-activator.js";

/** What {@link startFakeChain} started: the fake activator on loopback and the hook asking it. */
export interface FakeChain {
  activator: FakeActivator;
  activatorPort: number;
  hook: HookService;
  close(): Promise<void>;
}

/**
 * The fake-but-real activator served on a free loopback port and the hook service pointed at it;
 * resolves once the hook's watch stream is connected. `hook` is every other hook option.
 */
export async function startFakeChain(
  revisions: FakeRevision[],
  hook: Omit<HookServiceOptions, "port" | "activatorUrl" | "onWatchState">,
): Promise<FakeChain> {
  const activator = new FakeActivator(revisions);
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: activator.app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  const activatorPort = (server.address() as AddressInfo).port;
  let watchUp: () => void = () => {};
  const watching = new Promise<void>((r) => {
    watchUp = r;
  });
  const service = await startIngressHook({
    ...hook,
    port: 0,
    activatorUrl: `http://127.0.0.1:${activatorPort}`,
    onWatchState: (s) => {
      if (s === "connected") watchUp();
    },
  });
  await watching;
  return {
    activator,
    activatorPort,
    hook: service,
    async close() {
      await service.close();
      activator.close();
      server.close();
    },
  };
}
