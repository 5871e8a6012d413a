import http from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * Runs in Node before the workerd pool starts: a pod for the real activator worker to probe and forward
 * to. It answers the queue-proxy readiness probe (K-Network-Probe: queue) and echoes everything else.
 */
export default async function setup(project: TestProject) {
  const server = http.createServer((req, res) => {
    if (req.headers["k-network-probe"] === "queue") {
      res.writeHead(200, { "content-type": "text/plain" }).end("queue");
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ url: req.url }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  project.provide("podPort", (server.address() as AddressInfo).port);
  return () => new Promise<void>((r) => server.close(() => r()));
}
