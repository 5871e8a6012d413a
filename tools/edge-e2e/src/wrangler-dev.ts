import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { get } from "./http.js";
import { type Proc, start } from "./proc.js";

/** The repository root (this file is tools/edge-e2e/src/). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const GATEWAY_CONFIG = join(ROOT, "apps/ingress-hook/wrangler.jsonc");
export const ACTIVATOR_CONFIG = join(ROOT, "apps/activator/wrangler.jsonc");

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      s.close(() => (typeof a === "object" && a ? ok(a.port) : fail(new Error("no port"))));
    });
  });
}

/** A running `wrangler dev` with both Workers. */
export interface WranglerDev {
  url: string;
  proc: Proc;
  stop(): Promise<void>;
}

/**
 * docs/edge.md's command: `node scripts/edge-dev.mjs --port <free> --gateway K=V ... --activator K=V ...`,
 * which runs `wrangler dev --ip 127.0.0.1 --port <port> -c <gateway> -c <activator>` (local workerd, no
 * account, offline) on copies of the shipped configs; resolves once the gateway answers.
 */
export async function startWranglerDev(opts: {
  gatewayVars: Record<string, string>;
  activatorVars: Record<string, string>;
}): Promise<WranglerDev> {
  const port = await freePort();
  const args = [join(ROOT, "scripts/edge-dev.mjs"), "--port", String(port)];
  for (const [k, v] of Object.entries(opts.gatewayVars)) args.push("--gateway", `${k}=${v}`);
  for (const [k, v] of Object.entries(opts.activatorVars)) args.push("--activator", `${k}=${v}`);
  const proc = start(process.execPath, args, { CI: "true", NO_COLOR: "1" });
  const url = `http://127.0.0.1:${port}`;
  try {
    await proc.waitFor(/Ready on/);
    await get(`${url}/_thaw/edge`, { timeoutMs: 20_000 });
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return { url, proc, stop: () => proc.stop() };
}
