import http from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@thaw/clock";
import type { QueueProxyConfig } from "./config.js";
import { startQueueProxy } from "./queue-proxy.js";

/** Requests sent through the throwaway queue-proxy: enough for V8 to compile the request path once. */
const ROUNDS = 4;

/** One GET; resolves with its status (0 when it failed). */
function get(port: number, headers: Record<string, string>, agent: http.Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: "127.0.0.1", port, path: "/", headers, agent, timeout: 2000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", () => resolve(0));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}

/**
 * Runs the serving path once while the app is still starting: a second, throwaway queue-proxy (same code,
 * loopback ports picked by the kernel, no TLS, no request log) in front of a throwaway upstream in this
 * process, sent a queue probe and a few proxied requests, then closed. V8 compiles functions on their first
 * call, so without this the first real probe answer, request and response of a cold start each pay for
 * compiling the code they run (the cold-start bench's "queue-proxy -> activator healthy", "forward" and
 * "answer" phases). Resolves with the number of 200 answers (2 x ROUNDS when all went through); never
 * throws: a failed warm-up only means a slower first request.
 */
export async function warmUp(config: QueueProxyConfig): Promise<number> {
  let ok = 0;
  const upstream = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" }).end("warm");
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const qp = await startQueueProxy(
      {
        ...config,
        servingPort: 0,
        servingTlsPort: 0,
        adminPort: 0,
        metricsPort: 0,
        userMetricsPort: 0,
        userPort: (upstream.address() as AddressInfo).port,
        bindHost: "127.0.0.1",
        certsDir: "/nonexistent/thaw-warm-up",
        requestLog: false,
      },
      { clock: systemClock, prober: () => true, requestLog: null, log: () => {} },
    );
    try {
      const port = qp.ports.serving;
      for (let i = 0; i < ROUNDS; i++) {
        const probe = { "k-network-probe": "queue", "user-agent": "Knative-Activator-Probe" };
        if ((await get(port, probe, agent)) === 200) ok++;
        if ((await get(port, { host: "warm-up.invalid" }, agent)) === 200) ok++;
      }
    } finally {
      agent.destroy();
      await qp.close();
    }
  } catch {
    // Nothing to do: the real queue-proxy is unaffected.
  } finally {
    upstream.closeAllConnections();
    await new Promise<void>((resolve) => upstream.close(() => resolve()));
  }
  return ok;
}
