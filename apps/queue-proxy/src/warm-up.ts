import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@thaw/clock";
import { Header, ProbeValue, UserAgent } from "@thaw/protocol";
import { parseConfig } from "./config.js";
import { loopbackPodEnv } from "./loopback-env.js";
import { startQueueProxy } from "./queue-proxy.js";
import { readiness } from "./readiness.js";

/** A pod env for a queue-proxy on loopback ephemeral ports in front of `userPort`, probed over TCP. */
function warmUpEnv(userPort: number): Record<string, string> {
  return loopbackPodEnv(userPort, "warm-up", {
    CONTAINER_CONCURRENCY: "10",
    REVISION_TIMEOUT_SECONDS: "10",
    THAW_DRAIN_QUIET_PERIOD_MS: "0",
    // No TLS port: nothing is read from a certificate mount.
    THAW_CERTS_DIR: "/nonexistent",
  });
}

/** One request on `agent`; resolves with its status once the body ended. */
function send(
  agent: Agent,
  port: number,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/", method, headers, agent }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode ?? 0));
      res.once("error", reject);
    });
    req.once("error", reject);
    req.end(body);
  });
}

/**
 * Runs the serving port's request path of a spare before any pod takes it: a throwaway queue-proxy in
 * this process on loopback ephemeral ports, in front of a throwaway HTTP server, gets a queue probe and a
 * few requests over a keep-alive connection (as the activator sends them), then is closed. V8 has then
 * compiled the probe, proxy and answer code, so the pod's first request does not pay for it. Bounded by
 * `timeoutMs`; never rejects; writes nothing to stdout or stderr.
 */
export async function warmRequestPath(timeoutMs = 2000): Promise<boolean> {
  const backend = createServer((req, res) => {
    req.resume();
    req.once("end", () => res.writeHead(200, { "content-type": "text/plain" }).end("ok"));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let qp: Awaited<ReturnType<typeof startQueueProxy>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  /** Set once the bound ran out: a queue-proxy that starts after that is closed as soon as it is up. */
  let abandoned = false;
  const run = async (): Promise<boolean> => {
    await new Promise<void>((resolve, reject) => {
      backend.once("error", reject);
      backend.listen(0, "127.0.0.1", () => resolve());
    });
    if (abandoned) return false;
    const parsed = parseConfig(warmUpEnv((backend.address() as AddressInfo).port));
    if (!parsed.ok) return false;
    const probe = readiness(parsed.value);
    if ("error" in probe) return false;
    qp = await startQueueProxy(parsed.value, { clock: systemClock, prober: probe.prober, requestLog: null });
    if (abandoned) {
      await qp.close().catch(() => {});
      return false;
    }
    const port = qp.ports.serving;
    const probed = await send(agent, port, "GET", {
      [Header.networkProbe]: ProbeValue.queue,
      [Header.userAgent]: `${UserAgent.kubeletPrefix}thaw`,
    });
    let ok = probed === 200;
    for (let i = 0; i < 3; i++) ok = (await send(agent, port, "GET", {})) === 200 && ok;
    ok = (await send(agent, port, "POST", { "content-type": "text/plain" }, "warm")) === 200 && ok;
    return ok;
  };
  const bounded = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => {
      abandoned = true;
      resolve(false);
    }, timeoutMs);
  });
  const running = run().catch(() => false);
  const ok = await Promise.race([running, bounded]);
  clearTimeout(timer);
  // Past the bound the run may still be starting: whatever it bound is closed once it stops.
  void running.then(async () => {
    agent.destroy();
    await qp?.close().catch(() => {});
    backend.closeAllConnections();
    await new Promise<void>((resolve) => backend.close(() => resolve()));
  });
  return ok;
}
